"""The lock ``saphira up`` holds on its state directory while it runs.

An ``flock`` on ``<state-dir>/saphira-up.lock``, taken before anything else
is started and held by the open file until the process ends (a crash lets it
go too), with the holder's pid written in it for messages. ``saphira purge``
refuses a state directory whose lock is held (that cloud still runs), and
holds the lock itself while it works.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from dataclasses import dataclass

LOCK_NAME = "saphira-up.lock"


@dataclass(frozen=True)
class Held:
    """The lock of a running cloud: its path and the pid written in it (0 if unreadable)."""

    path: str
    pid: int


def path_of(state_dir: str) -> str:
    return os.path.join(state_dir, LOCK_NAME)


def acquire(state_dir: str) -> int | Held:
    """The open descriptor holding the lock (keep it open), or who holds it."""
    path = path_of(state_dir)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return Held(path, _pid_in(path))
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def holder(state_dir: str) -> Held | None:
    """Who runs this state directory's cloud now, or None (no lock, or nobody holds it)."""
    path = path_of(state_dir)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return Held(path, _pid_in(path))
    finally:
        os.close(fd)
    return None


def _pid_in(path: str) -> int:
    with contextlib.suppress(OSError, ValueError), open(path, encoding="ascii") as lock:
        return int(lock.read().strip() or 0)
    return 0
