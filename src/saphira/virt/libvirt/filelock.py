"""An exclusive ``flock`` on a lock file, between threads and processes alike.

flock belongs to an open file description, so two threads that each open
the file exclude each other just as two processes do. The holder removes the
lock file when it lets go, so lock files never pile up; a waiter that then
wakes up holding the removed file notices (its inode is no longer the one at
the path) and starts over on the new one.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def locked(path: Path, *, wait: bool = True) -> Iterator[bool]:
    """Hold the lock on ``path`` for the block; yields False (lock not taken)
    when ``wait`` is False and someone else holds it."""
    fd = _acquire(path, wait)
    if fd is None:
        yield False
        return
    try:
        yield True
    finally:
        path.unlink(missing_ok=True)
        os.close(fd)


def _acquire(path: Path, wait: bool) -> int | None:
    flags = fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, flags)
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        if _same_file(fd, path):
            return fd
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        on_disk = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (on_disk.st_dev, on_disk.st_ino)
