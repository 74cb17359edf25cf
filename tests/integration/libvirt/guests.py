"""Helpers for tests that drive LibvirtDriver against real TCG guests.

The image comes from a local file through the driver's ImageSource seam, so
these tests need libvirt and QEMU but no control plane.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from saphira.domain import direct_boot
from saphira.exception import ImageNotFound
from saphira.guest_image import BOOTED, CMDLINE, GuestImage
from saphira.objects import Flavor, Instance
from saphira.virt.errors import GuestNotFound
from saphira.virt.libvirt.driver import LibvirtDriver
from saphira.virt.libvirt.paths import InstanceFiles
from saphira.virt.types import ImageMeta, ImageStream
from tests.scratch import traversable_dir

BOOT_TIMEOUT = 90.0
TINY = Flavor(flavorid="t1", name="tiny", vcpus=1, memory_mb=128, root_gb=1)
KERNEL, RAMDISK = "tiny-kernel", "tiny-ramdisk"
DIRECT_BOOT = {direct_boot.KERNEL_KEY: KERNEL, direct_boot.RAMDISK_KEY: RAMDISK,
               direct_boot.CMDLINE_KEY: CMDLINE}  # fmt: skip


def qemu_reachable_dir(prefix: str) -> contextlib.AbstractContextManager[Path]:
    """Under /var/tmp (not a tmpfs: guests' disks go there), traversable by QEMU's user."""
    return traversable_dir(f"saphira-{prefix}-", "/var/tmp")


class FileSource:
    """An ImageSource serving local files (qcow2 unless ``formats`` says otherwise);
    counts opens to prove the cache works."""

    def __init__(self, images: dict[str, Path], formats: dict[str, str] | None = None) -> None:
        self.images = images
        self.formats = formats or {}
        self.opens = 0
        self.opened: Counter[str] = Counter()

    @classmethod
    def tiny(cls, image: GuestImage, *disks: str) -> FileSource:
        """The tiny image's disk under each name of ``disks`` ("tiny" if none), with its
        uncompressed kernel and its ramdisk, the parts a direct boot takes."""
        found = {name: image.qcow2 for name in disks or ("tiny",)}
        found.update({KERNEL: image.vmlinux, RAMDISK: image.initramfs})
        return cls(found, {KERNEL: "aki", RAMDISK: "ari"})

    def open(self, image_id: str) -> ImageStream:
        self.opens += 1
        self.opened[image_id] += 1
        path = self.images.get(image_id)
        if path is None:
            raise ImageNotFound(image_id=image_id)
        data = path.read_bytes()
        return ImageStream(
            image_id=image_id,
            disk_format=self.formats.get(image_id, "qcow2"),
            size=len(data),
            hash_algo="sha512",
            hash_value=hashlib.sha512(data).hexdigest(),
            checksum=hashlib.md5(data, usedforsecurity=False).hexdigest(),
            chunks=_chunks(data),
        )


def _chunks(data: bytes, size: int = 256 * 1024) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


def instance(flavor: Flavor = TINY, image_ref: str = "tiny", *, direct: bool = True) -> Instance:
    """A server of ``image_ref``; ``direct``: booted straight from the tiny image's
    kernel and ramdisk (as the compute API records an AMI-style image's), else from
    its disk through the firmware and SYSLINUX (under TCG, 7 s of CPU instead of 2.5)."""
    return Instance(
        uuid=str(uuid.uuid4()), project_id="p", user_id="u", flavor=flavor,
        display_name="libvirt-test", image_ref=image_ref,
        system_metadata=DIRECT_BOOT if direct else {},
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
