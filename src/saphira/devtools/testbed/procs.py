"""Processes by namespace, and ending them by PID (TERM, then KILL)."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable
from pathlib import Path

PROC = Path("/proc")
TERM_WAIT = 10.0
KILL_WAIT = 5.0
POLL = 0.1


def ns_key(path: Path) -> tuple[int, int] | None:
    """(device, inode) of a namespace, from its pinned file or /proc/PID/ns/<kind>."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_dev, found.st_ino)


KINDS = ("mnt", "net", "uts")


def in_namespaces(keys: Iterable[tuple[int, int] | None], proc: Path = PROC) -> list[int]:
    """Every process (but this one) in any of these mount, network or UTS namespaces.

    UTS counts because ``ip netns exec`` gives a node's DHCP servers network and
    mount namespaces of their own, but they keep the node's host name.
    """
    wanted = {key for key in keys if key is not None}
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        held = {ns_key(entry / "ns" / kind) for kind in KINDS}
        if held & wanted:
            found.append(int(entry.name))
    return sorted(found)


def named(pids: Iterable[int], proc: Path = PROC) -> list[str]:
    """``name (pid)`` of each of these processes that is still there."""
    found = []
    for pid in pids:
        with contextlib.suppress(OSError):
            found.append(f"{(proc / str(pid) / 'comm').read_text().strip()} ({pid})")
    return found


def alive(pids: Iterable[int]) -> list[int]:
    """Those of ``pids`` still running (not ended, not zombies)."""
    left = []
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        if _zombie(pid):
            continue
        left.append(pid)
    return left


def _zombie(pid: int) -> bool:
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def _signal(pids: Iterable[int], sig: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


def _wait_gone(pids: list[int], timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    left = alive(pids)
    while left and time.monotonic() < deadline:
        time.sleep(POLL)
        left = alive(left)
    return left


def end(pids: list[int]) -> list[int]:
    """SIGTERM these processes, SIGKILL what still runs after a while; those never gone."""
    _signal(pids, signal.SIGTERM)
    left = _wait_gone(pids, TERM_WAIT)
    _signal(left, signal.SIGKILL)
    return _wait_gone(left, KILL_WAIT)
