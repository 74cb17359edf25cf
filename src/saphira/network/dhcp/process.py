"""One network's dnsmasq: found by its pid file, started, reloaded, stopped.

The pid file alone is not trusted: a pid is ours only while the process
behind it still carries our ``--pid-file`` argument, so a recycled pid or a
zombie is never signalled. That is also how a restarted agent recognises the
dnsmasq it left running.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path

from saphira.network.dhcp.errors import DhcpError
from saphira.privsep import dnsmasq

LOG = logging.getLogger(__name__)
START_TIMEOUT = 5.0
STOP_TIMEOUT = 5.0
POLL = 0.05


def cmdline(pid: int) -> list[str]:
    """The process's argv; empty for a process gone or a zombie."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return raw.decode(errors="replace").split("\0")[:-1]


def running_pid(pidfile: Path) -> int | None:
    try:
        pid = int(pidfile.read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if f"--pid-file={pidfile}" in cmdline(pid) else None


def start(argv: Sequence[str], *, namespace: str, pidfile: Path) -> int:
    dnsmasq.spawn(argv, namespace=namespace)
    deadline = time.monotonic() + START_TIMEOUT
    while (pid := running_pid(pidfile)) is None:
        if time.monotonic() > deadline:
            raise DhcpError(detail=f"dnsmasq in {namespace} started but wrote no pid to {pidfile}")
        time.sleep(POLL)
    LOG.info("dnsmasq %d serves %s", pid, namespace)
    return pid


def reload(pid: int) -> None:
    dnsmasq.reload(pid)


def stop(pid: int, pidfile: Path) -> None:
    """SIGTERM, then SIGKILL if it lingers; returns once it is gone."""
    dnsmasq.terminate(pid)
    if not _wait_gone(pid, pidfile, STOP_TIMEOUT):
        LOG.warning("dnsmasq %d ignored SIGTERM for %.0f s, killing it", pid, STOP_TIMEOUT)
        dnsmasq.kill(pid)
        if not _wait_gone(pid, pidfile, STOP_TIMEOUT):
            raise DhcpError(detail=f"dnsmasq {pid} survived SIGKILL")
    pidfile.unlink(missing_ok=True)


def _wait_gone(pid: int, pidfile: Path, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while _holds_on(pid, pidfile):
        if time.monotonic() > deadline:
            return False
        time.sleep(POLL)
    return True


def _holds_on(pid: int, pidfile: Path) -> bool:
    """Whether our dnsmasq may still hold its sockets. An exiting process has no
    command line any more (its memory goes first) but keeps its files until it is
    a zombie, so a new dnsmasq started then finds its address in use."""
    argv = cmdline(pid)
    if argv:
        return f"--pid-file={pidfile}" in argv  # another program: the pid was reused
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False  # gone
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")
