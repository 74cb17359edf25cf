"""Helpers for tests that drive LibvirtDriver against real TCG guests.

The image comes from a local file through the driver's ImageSource seam, so
these tests need libvirt and QEMU but no control plane.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from saphira.exception import ImageNotFound
from saphira.guest_image import BOOTED
from saphira.objects import Flavor, Instance
from saphira.virt.errors import GuestNotFound
from saphira.virt.libvirt.driver import LibvirtDriver
from saphira.virt.libvirt.paths import InstanceFiles
from saphira.virt.types import ImageMeta, ImageStream
from tests.scratch import traversable_dir

BOOT_TIMEOUT = 90.0
TINY = Flavor(flavorid="t1", name="tiny", vcpus=1, memory_mb=128, root_gb=1)


def qemu_reachable_dir(prefix: str) -> contextlib.AbstractContextManager[Path]:
    """Under /var/tmp (not a tmpfs: guests' disks go there), traversable by QEMU's user."""
    return traversable_dir(f"saphira-{prefix}-", "/var/tmp")


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


def qemu_pids(uuid: str) -> list[int]:
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if uuid.encode() in cmdline and b"qemu" in cmdline:
                pids.append(int(proc.name))
    return pids


def qemu_gone(uuid: str, timeout: float = 15.0) -> list[int]:
    """QEMU processes of ``uuid`` still there after ``timeout``: libvirt's destroy and
    managed save return when the guest is off, and the process may take a moment
    more to exit under load."""
    deadline = time.monotonic() + timeout
    while (left := qemu_pids(uuid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def assert_gone(driver: LibvirtDriver, inst: Instance) -> None:
    with pytest.raises(GuestNotFound):
        driver.get_info(inst)
    files = InstanceFiles.of(driver.settings.instances_path, inst.uuid)
    assert not files.directory.exists()
    assert not files.resize_backup.directory.exists()
    assert qemu_gone(inst.uuid) == []
