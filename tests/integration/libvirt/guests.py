"""Helpers for tests that drive LibvirtDriver against real TCG guests.

The image comes from a local file through the driver's ImageSource seam, so
these tests need libvirt and QEMU but no control plane.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from saphira.devtools.guest_image import BOOTED
from saphira.exception import ImageNotFound
from saphira.objects import Flavor, Instance
from saphira.virt.libvirt.driver import LibvirtDriver
from saphira.virt.libvirt.paths import InstanceFiles
from saphira.virt.types import ImageMeta, ImageStream

BOOT_TIMEOUT = 90.0
TINY = Flavor(flavorid="t1", name="tiny", vcpus=1, memory_mb=128, root_gb=1)
BIGGER = Flavor(flavorid="t2", name="bigger", vcpus=2, memory_mb=192, root_gb=2, ephemeral_gb=1)


@contextlib.contextmanager
def qemu_reachable_dir(prefix: str) -> Iterator[Path]:
    """A scratch directory QEMU (which runs as its own user) can traverse.

    pytest's temporary directories are 0700 under a 0700 root, which the
    driver rightly refuses as an instances_path.
    """
    path = Path(tempfile.mkdtemp(prefix=f"saphira-{prefix}-", dir="/var/tmp"))
    path.chmod(0o711)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


class FileSource:
    """An ImageSource serving local files; counts opens to prove the cache works."""

    def __init__(self, images: dict[str, Path]) -> None:
        self.images = images
        self.opens = 0

    def open(self, image_id: str) -> ImageStream:
        self.opens += 1
        path = self.images.get(image_id)
        if path is None:
            raise ImageNotFound(image_id=image_id)
        data = path.read_bytes()
        return ImageStream(
            image_id=image_id,
            disk_format="qcow2",
            size=len(data),
            hash_algo="sha512",
            hash_value=hashlib.sha512(data).hexdigest(),
            checksum=hashlib.md5(data, usedforsecurity=False).hexdigest(),
            chunks=_chunks(data),
        )


def _chunks(data: bytes, size: int = 256 * 1024) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


def instance(flavor: Flavor = TINY, image_ref: str = "tiny") -> Instance:
    return Instance(
        uuid=str(uuid.uuid4()), project_id="p", user_id="u", flavor=flavor,
        display_name="libvirt-test", image_ref=image_ref,
    )  # fmt: skip


def meta(image_id: str = "tiny") -> ImageMeta:
    return ImageMeta(id=image_id, name=image_id)


def console(driver: LibvirtDriver, inst: Instance) -> str:
    return InstanceFiles.of(driver.settings.instances_path, inst.uuid).console_log.read_text(
        errors="replace"
    )


def wait_count(
    driver: LibvirtDriver, inst: Instance, text: str, count: int, timeout: float = BOOT_TIMEOUT
) -> str:
    """Wait until ``text`` appears ``count`` times on the guest's console."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        log = console(driver, inst)
        if log.count(text) >= count:
            return log
        time.sleep(0.2)
    raise AssertionError(f"{text!r} not seen {count}x in {timeout} s; console:\n{log[-3000:]}")


def boots(driver: LibvirtDriver, inst: Instance, count: int) -> str:
    return wait_count(driver, inst, BOOTED, count)
