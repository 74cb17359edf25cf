"""A deterministic initramfs writer (cpio "newc", the format the kernel unpacks).

Written here rather than by cpio(1) so that every timestamp, owner and inode
number is fixed: the same inputs always give the same bytes.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

_MAGIC = b"070701"
_S_IFDIR = 0o040000
_S_IFREG = 0o100000
_S_IFLNK = 0o120000
_S_IFCHR = 0o020000


@dataclass(frozen=True)
class Entry:
    path: str
    mode: int
    data: bytes = b""
    rdev: tuple[int, int] = (0, 0)


def directory(path: str) -> Entry:
    return Entry(path, _S_IFDIR | 0o755)


def file(path: str, data: bytes, perm: int = 0o644) -> Entry:
    return Entry(path, _S_IFREG | perm, data)


def symlink(path: str, target: str) -> Entry:
    return Entry(path, _S_IFLNK | 0o777, target.encode())


def chardev(path: str, major: int, minor: int, perm: int = 0o600) -> Entry:
    return Entry(path, _S_IFCHR | perm, rdev=(major, minor))


def _pad(buf: io.BytesIO) -> None:
    buf.write(b"\0" * (-buf.tell() % 4))


def _header(ino: int, entry: Entry, name: bytes) -> bytes:
    nlink = 2 if entry.mode & _S_IFDIR == _S_IFDIR else 1
    fields = [ino, entry.mode, 0, 0, nlink, 0, len(entry.data), 0, 0]
    fields += [entry.rdev[0], entry.rdev[1], len(name) + 1, 0]
    return _MAGIC + b"".join(b"%08X" % f for f in fields)


def archive(entries: list[Entry]) -> bytes:
    """The newc archive of entries, in path order, with the trailer."""
    buf = io.BytesIO()
    ordered = sorted(entries, key=lambda e: e.path)
    for ino, entry in enumerate([*ordered, Entry("TRAILER!!!", 0)], start=1):
        name = entry.path.lstrip("/").encode()
        buf.write(_header(ino if entry.mode else 0, entry, name))
        buf.write(name + b"\0")
        _pad(buf)
        buf.write(entry.data)
        _pad(buf)
    return buf.getvalue()
