"""Verified base images, downloaded once per host and shared by every overlay.

A base is named by the sha1 of its image id (as Nova names them) and appears
only by ``os.replace`` once its bytes match the image service's hash and size
and qemu-img agrees with the declared format, so a file under that name is
always whole and checked. Builds of one image, in threads or in processes,
serialise on a lock file per base; whoever gets it second finds the base
there. Cleanup takes the same lock without waiting, so a base being
downloaded or handed out is never removed under its user.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from saphira.virt.errors import VirtError
from saphira.virt.libvirt import disks
from saphira.virt.libvirt.filelock import locked
from saphira.virt.types import ImageSource, ImageStream

BOOTABLE = ("raw", "qcow2")  # a root disk's base
BOOT_FILES = ("aki", "ari")  # a direct boot's kernel and ramdisk: plain files
# What qemu-img must find in an image of each declared format.
_DATA_FORMAT = {"aki": "raw", "ari": "raw"}
TEMP_SUFFIX = ".part"
STRAY_TEMP_AGE = 3600  # no download goes an hour without writing
_BASE_NAME = re.compile(r"[0-9a-f]{40}")


@dataclass(frozen=True)
class CachedImage:
    path: Path
    disk_format: str
    virtual_size: int


class ImageCache:
    def __init__(self, base_dir: Path, source: ImageSource) -> None:
        self.base_dir = base_dir
        self.source = source

    def path_for(self, image_id: str) -> Path:
        return self.base_dir / hashlib.sha1(image_id.encode(), usedforsecurity=False).hexdigest()

    def fetch(self, image_id: str, formats: tuple[str, ...] = BOOTABLE) -> CachedImage:
        """The image's verified base, downloaded first if this host has none; a
        download of any other disk format than ``formats`` is refused.

        Its mtime is set to now on every use: cleanup's age clock. A base that a
        running guest holds belongs to QEMU's user meanwhile (libvirt's dynamic
        ownership), so the service cannot touch it; in use, it needs no clock.
        """
        path = self.path_for(image_id)
        self.base_dir.mkdir(parents=True, exist_ok=True)
        with locked(_lock_path(path)):
            if not path.exists():
                self._download(image_id, path, formats)
            with contextlib.suppress(PermissionError):
                os.utime(path)
            found = disks.info(path)
        return CachedImage(path, found.format, found.virtual_size)

    def cleanup(self, in_use: set[Path], min_age_seconds: int,
                now: float | None = None) -> list[Path]:  # fmt: skip
        """Remove bases no guest uses that were last used ``min_age_seconds`` ago or
        more, and temp files of downloads that died; what was removed."""
        if not self.base_dir.is_dir():
            return []
        now = time.time() if now is None else now
        keep = {path.resolve() for path in in_use}
        removed = []
        for entry in sorted(self.base_dir.iterdir()):
            if entry.name.endswith(TEMP_SUFFIX):
                gone = _older(entry, now, STRAY_TEMP_AGE) and _unlink(entry)
            elif _BASE_NAME.fullmatch(entry.name) and entry.resolve() not in keep:
                gone = _remove_unused(entry, now, min_age_seconds)
            else:
                continue
            if gone:
                removed.append(entry)
        return removed

    def _download(self, image_id: str, path: Path, formats: tuple[str, ...]) -> None:
        with self.source.open(image_id) as stream:
            if stream.disk_format not in formats:
                raise VirtError(f"image {image_id}: disk format {stream.disk_format!r} cannot "
                                f"be booted here (only {', '.join(formats)})")  # fmt: skip
            fd, name = tempfile.mkstemp(dir=self.base_dir, prefix=f"{path.name}.",
                                        suffix=TEMP_SUFFIX)  # fmt: skip
            temp = Path(name)
            try:
                _save(stream, fd, temp)
                _inspect(stream, temp)
                temp.chmod(0o644)  # qemu runs as another user
                os.replace(temp, path)
            finally:
                temp.unlink(missing_ok=True)


def _save(stream: ImageStream, fd: int, temp: Path) -> None:
    """Write the chunks to disk, hashing on the way; the data must be what the
    image service says it stored."""
    algo, expected = _expected_hash(stream)
    digest = hashlib.new(algo, usedforsecurity=False)
    size = 0
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in stream.chunks:
                digest.update(chunk)
                out.write(chunk)
                size += len(chunk)
            out.flush()
            os.fsync(out.fileno())
    except OSError as error:
        raise VirtError(f"image {stream.image_id}: cannot write {temp}: {error}") from None
    if size != stream.size:
        raise VirtError(f"image {stream.image_id}: got {size} bytes, "
                        f"the image service says {stream.size}")  # fmt: skip
    if digest.hexdigest() != expected.lower():
        raise VirtError(f"image {stream.image_id}: {algo} of the data does not match "
                        f"the image service's ({expected})")  # fmt: skip


def _expected_hash(stream: ImageStream) -> tuple[str, str]:
    """Glance's secure hash when the image has one, else its md5 checksum."""
    if stream.hash_algo and stream.hash_value:
        if stream.hash_algo not in hashlib.algorithms_available:
            raise VirtError(f"image {stream.image_id}: unknown hash {stream.hash_algo!r}")
        return stream.hash_algo, stream.hash_value
    if stream.checksum:
        return "md5", stream.checksum
    raise VirtError(f"image {stream.image_id}: no checksum to verify its data against")


def _inspect(stream: ImageStream, temp: Path) -> None:
    """qemu-img's own reading must agree with the declared format, and the image
    must be self-contained: a backing or data file would let it read host files."""
    found = disks.info(temp)
    why = ""
    if found.format != _DATA_FORMAT.get(stream.disk_format, stream.disk_format):
        why = f"it is declared {stream.disk_format} but its data is {found.format}"
    elif found.backing_file is not None:
        why = f"it has a backing file ({found.backing_file})"
    elif found.data_file:
        why = f"it has an external data file ({found.data_file})"
    if why:
        raise VirtError(f"image {stream.image_id} refused: {why}")


def _remove_unused(base: Path, now: float, min_age: int) -> bool:
    """Remove ``base`` if it is old enough and nobody holds its lock."""
    if not _older(base, now, min_age):
        return False
    with locked(_lock_path(base), wait=False) as held:
        return held and _older(base, now, min_age) and _unlink(base)


def _lock_path(base: Path) -> Path:
    return base.with_name(f"{base.name}.lock")


def _older(path: Path, now: float, age: float) -> bool:
    try:
        return now - path.stat().st_mtime >= age
    except FileNotFoundError:
        return False


def _unlink(path: Path) -> bool:
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True
