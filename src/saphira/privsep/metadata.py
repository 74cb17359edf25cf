"""The metadata proxy of one DHCP namespace: started by the helper, run as the service user.

The helper builds the command itself (``proxy_argv``: this interpreter, the
proxy module, and only checked values); the proxy binds its port 80 while
still root inside the namespace, then drops to ``uid``/``gid``, which must
not be root's, and detaches. Stopping it needs no root: the agent signals
a process of its own user (or, as root, of ``nobody``).
"""

from __future__ import annotations

import re
import sys

from saphira.privsep import validate
from saphira.privsep.context import entrypoint
from saphira.privsep.runner import run

MODULE = "saphira.network.metadata.ns_proxy"
PID_FILE = "metadata-proxy.pid"
LOG_FILE = "metadata-proxy.log"
METADATA_V4 = "169.254.169.254"
METADATA_V6 = "fe80::a9fe:a9fe"
_LISTEN_V6 = re.compile(rf"{re.escape(METADATA_V6)}%[A-Za-z0-9][A-Za-z0-9_.:-]{{0,14}}")


def _listen(value: object) -> str:
    if value == METADATA_V4 or (isinstance(value, str) and _LISTEN_V6.fullmatch(value)):
        return str(value)
    raise validate.InvalidArgument(detail=f"metadata listener {value!r}")


def proxy_argv(
    network_id: str, socket: str, directory: str, listen: list[str], uid: int, gid: int
) -> list[str]:
    """The proxy's whole command line (the agent compares it with a running one's)."""
    if not isinstance(listen, list | tuple) or not listen:
        raise validate.InvalidArgument(detail=f"metadata listeners {listen!r}")
    directory = validate.path(directory)
    return [
        sys.executable, "-I", "-m", MODULE,
        f"--network-id={validate.identifier(network_id)}",
        f"--socket={validate.path(socket)}",
        f"--pid-file={directory}/{PID_FILE}",
        f"--log-file={directory}/{LOG_FILE}",
        f"--user={validate.integer(uid, 1, 2**31 - 2, 'uid')}",
        f"--group={validate.integer(gid, 1, 2**31 - 2, 'gid')}",
        *(f"--listen={_listen(address)}" for address in listen),
    ]  # fmt: skip


@entrypoint
def spawn_proxy(
    network_id: str,
    socket: str,
    directory: str,
    listen: list[str],
    uid: int,
    gid: int,
    *,
    namespace: str,
) -> None:
    """Returns once the proxy listens and has written its pid file (or failed to bind)."""
    argv = proxy_argv(network_id, socket, directory, listen, uid, gid)
    run(argv, namespace=validate.namespace(namespace))
