"""dnsmasq processes: start one inside a namespace, signal it by pid (helper entry points).

The command line is built by the DHCP agent, but the helper runs it only if
every option is one the agent writes (``checked_argv``), with values of the
expected shape and all files in one directory under their fixed names; and
it signals only processes that are dnsmasq.
"""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Sequence

from saphira.privsep import validate
from saphira.privsep.context import entrypoint
from saphira.privsep.runner import PrivsepError, run

FLAGS = frozenset(
    {"--no-hosts", "--no-resolv", "--conf-file=/dev/null", "--bind-interfaces",
     "--except-interface=lo"}
)  # fmt: skip
FILES = {
    "--pid-file": "pid",
    "--dhcp-hostsfile": "host",
    "--dhcp-optsfile": "opts",
    "--dhcp-leasefile": "leases",
    "--log-facility": "dnsmasq.log",
}
_ADDR = r"[0-9a-fA-F.:]+"
VALUES = {
    "--interface": re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,14}"),
    "--dhcp-option-force": re.compile(r"option:mtu,\d{2,5}"),
    "--dhcp-lease-max": re.compile(r"\d{1,8}"),
    "--dhcp-range": re.compile(rf"set:[A-Za-z0-9_.-]{{1,64}},{_ADDR},static,{_ADDR},\d{{1,9}}s"),
}


def checked_argv(argv: object) -> list[str]:
    if not isinstance(argv, list | tuple) or not argv or argv[0] != "dnsmasq":
        raise validate.InvalidArgument(detail=f"dnsmasq command {argv!r}")
    directories = set()
    for arg in argv[1:]:
        if not isinstance(arg, str):
            raise validate.InvalidArgument(detail=f"dnsmasq option {arg!r}")
        option, _, value = arg.partition("=")
        if option in FILES:
            directory, _, base = validate.path(value).rpartition("/")
            if base != FILES[option]:
                raise validate.InvalidArgument(detail=f"dnsmasq option {arg!r}")
            directories.add(directory)
        elif arg not in FLAGS and (option not in VALUES or not VALUES[option].fullmatch(value)):
            raise validate.InvalidArgument(detail=f"dnsmasq option {arg!r}")
    if len(directories) != 1 or not any(a.startswith("--pid-file=") for a in argv):
        raise validate.InvalidArgument(detail="dnsmasq files (one directory, with a pid file)")
    return [str(arg) for arg in argv]


@entrypoint
def spawn(argv: Sequence[str], *, namespace: str) -> None:
    """Returns once dnsmasq has daemonized and written its pid file.

    dnsmasq reports a bad configuration or a busy port through its exit
    status before it detaches, so failures surface here as PrivsepError.
    """
    run(checked_argv(argv), namespace=validate.namespace(namespace))


def _signal(pid: int, signum: int, *, check: bool) -> None:
    pid = validate.integer(pid, 2, 2**22, "pid")
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8") as comm:
            ours = comm.read().strip() == "dnsmasq"
        if not ours:
            raise validate.InvalidArgument(detail=f"pid {pid} (not dnsmasq)")
        os.kill(pid, signum)
    except OSError as error:
        if check:
            raise PrivsepError(command="kill", status="-", detail=str(error)) from None


@entrypoint
def reload(pid: int) -> None:
    """SIGHUP: dnsmasq re-reads its hosts and options files, leases kept."""
    _signal(pid, signal.SIGHUP, check=True)


@entrypoint
def terminate(pid: int) -> None:
    _signal(pid, signal.SIGTERM, check=False)


@entrypoint
def kill(pid: int) -> None:
    _signal(pid, signal.SIGKILL, check=False)


@entrypoint
def release(namespace: str, device: str, ip: str, mac: str) -> None:
    """Drop one IPv4 lease from a running dnsmasq (dnsmasq-utils' dhcp_release)."""
    argv = ["dhcp_release", validate.device(device), validate.address(ip), validate.mac(mac)]
    run(argv, namespace=validate.namespace(namespace))
