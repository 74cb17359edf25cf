"""The built image's parts are what they claim to be, checked with the system's own tools."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from saphira.guest_image import DISK_NAME, GuestImage, build, debs

pytestmark = pytest.mark.integration


def test_qcow2_is_a_qcow2_image(tiny_image: GuestImage) -> None:
    info = subprocess.run(
        ["qemu-img", "info", "--output=json", str(tiny_image.qcow2)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    data = json.loads(info.stdout)
    assert data["format"] == "qcow2"
    assert tiny_image.qcow2.name == DISK_NAME


def test_initramfs_holds_init_busybox_and_virtio_modules(tiny_image: GuestImage) -> None:
    listing = subprocess.run(
        ["cpio", "-it", "--quiet"],
        input=tiny_image.initramfs.read_bytes(), capture_output=True, check=True,
    ).stdout.decode().split()  # fmt: skip
    for name in ("init", "bin/busybox", "dev/console", "etc/udhcpc.script"):
        assert name in listing
    modules = {Path(n).stem for n in listing if n.endswith(".ko")}
    assert {"virtio", "virtio_ring", "virtio_pci", "virtio_net", "virtio_blk"} <= modules
    assert {"failover", "net_failover"} <= modules
    assert {"ata_piix", "libata", "scsi_mod", "sr_mod", "cdrom", "isofs"} <= modules  # config drive


def test_module_load_order_puts_dependencies_first(tiny_image: GuestImage) -> None:
    listing = subprocess.run(
        ["cpio", "-i", "--quiet", "--to-stdout", "etc/modules"],
        input=tiny_image.initramfs.read_bytes(), capture_output=True, check=True,
    ).stdout.decode().split()  # fmt: skip
    assert listing.index("failover.ko") < listing.index("net_failover.ko")
    assert listing.index("net_failover.ko") < listing.index("virtio_net.ko")
    assert listing.index("virtio_ring.ko") < listing.index("virtio_pci.ko")
    assert listing.index("libata.ko") < listing.index("ata_piix.ko")
    assert listing.index("cdrom.ko") < listing.index("sr_mod.ko")


def test_vmlinux_is_the_uncompressed_elf_kernel(tiny_image: GuestImage) -> None:
    assert tiny_image.vmlinux.read_bytes()[:4] == b"\x7fELF"
    assert tiny_image.vmlinux.stat().st_size > tiny_image.bzimage.stat().st_size


def test_rebuild_is_reused_and_a_forced_rebuild_is_bit_identical(
    tiny_image: GuestImage, tmp_path: Path
) -> None:
    again = build(tiny_image.directory)
    assert again.manifest == tiny_image.manifest
    fresh = build(tmp_path / "fresh", force=True)
    assert fresh.manifest["inputs"] == tiny_image.manifest["inputs"]
    sums = tiny_image.manifest["sha256"]
    assert isinstance(sums, dict)
    fresh_sums = fresh.manifest["sha256"]
    assert isinstance(fresh_sums, dict)
    for part in (fresh.initramfs, fresh.vmlinux, fresh.bzimage, fresh.qcow2):
        assert sums[part.name] == fresh_sums[part.name]


def test_without_apt_lists_the_cached_debs_decide(
    tiny_image: GuestImage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = tiny_image.manifest["inputs"]
    assert isinstance(inputs, dict)
    wanted = [debs.Package(n, v) for n, v in inputs["packages"].items()]
    for pkg in wanted:
        (tmp_path / pkg.deb_name).symlink_to(debs.default_cache_dir() / pkg.deb_name)

    def no_lists(name: str) -> str:
        raise debs.ImageBuildError(f"apt knows no candidate for {name}")

    monkeypatch.setattr(debs, "candidate", no_lists)
    assert sorted(debs.resolve(None, tmp_path), key=str) == sorted(wanted, key=str)
