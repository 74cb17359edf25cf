"""A TCP connect from inside a network namespace (helper entry point): the host side of a
guest's wire, as ``saphira verify`` checks that the guest's service answers."""

from __future__ import annotations

import sys

from saphira.privsep import validate
from saphira.privsep.context import entrypoint
from saphira.privsep.runner import run

CONNECT_SECONDS = 3
# A fixed program; the address and port are validated and passed as arguments.
_CONNECT = (
    "import socket, sys\n"
    "try:\n"
    "    socket.create_connection((sys.argv[1], int(sys.argv[2])), float(sys.argv[3])).close()\n"
    "except OSError as error:\n"
    "    print(error.strerror or error)\n"
    "    sys.exit(1)\n"
)


@entrypoint
def tcp_connect(namespace: str, address: str, port: int) -> str:
    """Empty when ``address:port`` accepted a connection from ``namespace``, else why not."""
    argv = [sys.executable, "-I", "-c", _CONNECT, validate.address(address),
            str(validate.integer(port, 1, 65535, "port")), str(CONNECT_SECONDS)]  # fmt: skip
    out = run(argv, namespace=validate.namespace(namespace), accept=(0, 1),
              timeout=CONNECT_SECONDS + 5)  # fmt: skip
    return out.strip()
