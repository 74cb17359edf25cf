"""An in-memory image service for the image cache, and a worker process that
fetches through it (``python -m tests.unit.virt.libvirt.fake_images``)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from saphira.virt.libvirt.imagecache import ImageCache
from saphira.virt.types import ImageStream

CHUNK = 64 * 1024


class FakeImages:
    """Images by id; records ``open`` calls (in ``log`` too, for other processes);
    ``pause`` runs before each chunk."""

    def __init__(self, pause: Callable[[], None] = lambda: None, log: Path | None = None) -> None:
        self.images: dict[str, tuple[bytes, str, int, dict[str, str]]] = {}
        self.opened: list[str] = []
        self.closed = 0
        self.pause = pause
        self.log = log
        self._lock = threading.Lock()

    def add(self, image_id: str, data: bytes, disk_format: str, size: int | None = None,
            hashes: dict[str, str] | None = None) -> None:  # fmt: skip
        """``size`` and ``hashes`` (hash_algo, hash_value, checksum) override the true ones."""
        true = {
            "hash_algo": "sha512",
            "hash_value": hashlib.sha512(data).hexdigest(),
            "checksum": hashlib.md5(data).hexdigest(),
        }
        self.images[image_id] = (data, disk_format, len(data) if size is None else size,
                                 {**true, **(hashes or {})})  # fmt: skip

    def open(self, image_id: str) -> ImageStream:
        with self._lock:
            self.opened.append(image_id)
        if self.log is not None:
            with open(self.log, "a") as log:
                log.write(f"{image_id}\n")
        data, disk_format, size, hashes = self.images[image_id]
        return ImageStream(image_id, disk_format, size, chunks=self._chunks(data),
                           closer=self._close, **hashes)  # fmt: skip

    def _chunks(self, data: bytes) -> Iterator[bytes]:
        for start in range(0, len(data), CHUNK):
            self.pause()
            yield data[start : start + CHUNK]

    def _close(self) -> None:
        with self._lock:
            self.closed += 1


def qcow2(path: Path, size: str = "16M", backing: Path | None = None) -> Path:
    cmd = ["qemu-img", "create", "-q", "-f", "qcow2"]
    if backing is not None:
        cmd += ["-b", str(backing), "-F", "raw"]
    subprocess.run([*cmd, str(path), size], check=True)
    return path


def raw_bytes(size: int = 1024 * 1024) -> bytes:
    return bytes(range(256)) * (size // 256)


def _wait_for_peers(marks: Path, peers: int) -> Callable[[], None]:
    """A pause that holds the download until every worker has started fetching."""

    def pause() -> None:
        deadline = time.monotonic() + 10
        while len(list(marks.glob("started-*"))) < peers and time.monotonic() < deadline:
            time.sleep(0.01)

    return pause


def main() -> None:
    """argv: base_dir marks_dir peers worker_name. Fetches image "img", logging
    each ``open`` to marks_dir/opened once every worker has started."""
    base_dir, marks, peers, name = sys.argv[1:5]
    images = FakeImages(_wait_for_peers(Path(marks), int(peers)), log=Path(marks, "opened"))
    images.add("img", raw_bytes(), "raw")
    Path(marks, f"started-{name}").touch()
    print(ImageCache(Path(base_dir), images).fetch("img").path)


if __name__ == "__main__":
    main()
