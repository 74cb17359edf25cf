"""The filesystem store: atomic, hashed, sparse, and clean on every failure."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from saphira.image.store import FilesystemStore, SizeExceeded, Truncated

MIB = 1024 * 1024


def _chunks(*parts: bytes) -> Iterator[bytes]:
    yield from parts


def test_write_commit_read(tmp_path: Path) -> None:
    store = FilesystemStore(str(tmp_path / "images"))
    data = [b"\0" * MIB, b"abc" * 1000, b"\0" * MIB]
    written = store.write("img", _chunks(*data), limit=10 * MIB, hash_algo="sha512")
    whole = b"".join(data)
    assert written.size == len(whole)
    assert written.checksum == hashlib.md5(whole).hexdigest()
    assert written.hash_value == hashlib.sha512(whole).hexdigest()
    assert not store.exists("img")
    store.commit(written, "img")
    assert b"".join(store.read("img")) == whole
    assert b"".join(store.read("img", MIB, 3)) == b"abc"
    blocks = os.stat(store.path("img")).st_blocks * 512
    assert blocks < len(whole)  # the zero runs were skipped, not written


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [({"limit": 10}, SizeExceeded), ({"limit": MIB, "expected": 100}, Truncated)],
)
def test_failures_leave_nothing(tmp_path: Path, kwargs: dict[str, int], error: type) -> None:
    store = FilesystemStore(str(tmp_path))
    with pytest.raises(error):
        store.write(
            "img", _chunks(b"x" * 50), hash_algo="sha512",
            limit=kwargs["limit"], expected=kwargs.get("expected"),
        )  # fmt: skip
    assert os.listdir(tmp_path) == []


def test_broken_source_leaves_nothing(tmp_path: Path) -> None:
    def broken() -> Iterator[bytes]:
        yield b"x" * 10
        raise Truncated()

    store = FilesystemStore(str(tmp_path))
    with pytest.raises(Truncated):
        store.write("img", broken(), limit=MIB, hash_algo="sha512")
    assert os.listdir(tmp_path) == []


def test_remove_partials(tmp_path: Path) -> None:
    store = FilesystemStore(str(tmp_path))
    (tmp_path / ".img.part-123").write_bytes(b"half")
    (tmp_path / "done").write_bytes(b"whole")
    assert store.remove_partials() == [".img.part-123"]
    assert os.listdir(tmp_path) == ["done"]
