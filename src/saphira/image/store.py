"""The filesystem store: one file per image, written atomically, read in chunks.

An upload goes to a hidden temp file in the store directory while md5 and the
secure hash are computed; only a complete, fsynced file is renamed to the
image id. Runs of zeros are skipped with a seek, so sparse images stay sparse.
Nothing ever holds an image whole in memory.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from saphira.image.formats import HEAD_SIZE, TAIL_SIZE

CHUNK = 1024 * 1024
PART = ".part-"

Gate = Callable[[int, int], None]  # (total after the chunk, the chunk's length); raises to refuse


class SizeExceeded(Exception):
    """The data passed the store's limit (image_size_cap)."""


class Truncated(Exception):
    """The client sent less than it announced, or the connection broke."""


@dataclass
class Written:
    """A complete upload in its temp file, not yet an image."""

    path: str
    size: int
    checksum: str
    hash_algo: str
    hash_value: str
    head: bytes
    tail: bytes


class _Tracker:
    """md5, the secure hash, the size, the head and the tail of a stream."""

    def __init__(self, hash_algo: str) -> None:
        self.md5 = hashlib.md5(usedforsecurity=False)
        self.secure = hashlib.new(hash_algo)
        self.size = 0
        self.head = bytearray()
        self.tail = b""

    def update(self, chunk: bytes) -> None:
        self.md5.update(chunk)
        self.secure.update(chunk)
        self.size += len(chunk)
        if len(self.head) < HEAD_SIZE:
            self.head += chunk[: HEAD_SIZE - len(self.head)]
        self.tail = (self.tail + chunk)[-TAIL_SIZE:]


class FilesystemStore:
    def __init__(self, datadir: str) -> None:
        self.datadir = os.path.abspath(datadir)

    def ensure(self) -> None:
        os.makedirs(self.datadir, mode=0o750, exist_ok=True)

    def path(self, image_id: str) -> str:
        if os.sep in image_id or image_id.startswith("."):
            raise ValueError(f"bad image id {image_id!r}")
        return os.path.join(self.datadir, image_id)

    def exists(self, image_id: str) -> bool:
        return os.path.exists(self.path(image_id))

    def write(
        self,
        image_id: str,
        chunks: Iterable[bytes],
        *,
        limit: int,
        hash_algo: str,
        expected: int | None = None,
        gate: Gate | None = None,
    ) -> Written:
        """Stream ``chunks`` to a temp file; any failure (SizeExceeded, Truncated, what
        ``gate`` raises before a chunk is written) leaves nothing behind."""
        self.ensure()
        path = os.path.join(self.datadir, f".{image_id}{PART}{uuid.uuid4().hex}")
        tracker = _Tracker(hash_algo)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o640)
        try:
            for chunk in chunks:
                tracker.update(chunk)
                if tracker.size > limit:
                    raise SizeExceeded()
                if gate is not None:
                    gate(tracker.size, len(chunk))
                if chunk.count(0) == len(chunk):
                    os.lseek(fd, len(chunk), os.SEEK_CUR)
                else:
                    os.write(fd, chunk)
            if expected is not None and tracker.size != expected:
                raise Truncated()
            os.ftruncate(fd, tracker.size)
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            _unlink(path)
            raise
        os.close(fd)
        return Written(
            path,
            tracker.size,
            tracker.md5.hexdigest(),
            hash_algo,
            tracker.secure.hexdigest(),
            bytes(tracker.head),
            tracker.tail,
        )

    def commit(self, written: Written, image_id: str) -> None:
        """Rename the temp file to the image's name and make the rename durable."""
        os.replace(written.path, self.path(image_id))
        dirfd = os.open(self.datadir, os.O_RDONLY)
        try:
            os.fsync(dirfd)
        finally:
            os.close(dirfd)

    def discard(self, written: Written) -> None:
        _unlink(written.path)

    def delete(self, image_id: str) -> None:
        _unlink(self.path(image_id))

    def size(self, image_id: str) -> int:
        return os.path.getsize(self.path(image_id))

    def read(self, image_id: str, start: int = 0, length: int | None = None) -> Iterator[bytes]:
        """The data from ``start``, ``length`` bytes or to the end, in CHUNK pieces."""
        handle = open(self.path(image_id), "rb")  # noqa: SIM115 - closed by the generator
        return _chunks(handle, start, length)

    def remove_partials(self) -> list[str]:
        """Delete temp files of uploads a crash interrupted; their names."""
        if not os.path.isdir(self.datadir):
            return []
        found = [n for n in os.listdir(self.datadir) if n.startswith(".") and PART in n]
        for name in found:
            _unlink(os.path.join(self.datadir, name))
        return found


def _chunks(handle: BinaryIO, start: int, length: int | None) -> Iterator[bytes]:
    try:
        handle.seek(start)
        left = length
        while left is None or left > 0:
            data: bytes = handle.read(CHUNK if left is None else min(CHUNK, left))
            if not data:
                return
            if left is not None:
                left -= len(data)
            yield data
    finally:
        handle.close()


def _unlink(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
