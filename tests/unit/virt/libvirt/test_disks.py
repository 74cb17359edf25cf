"""Guest disk files against the real qemu-img."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from saphira.virt.errors import VirtError
from saphira.virt.libvirt import disks
from tests.unit.virt.libvirt.fake_images import qcow2, raw_bytes

GIB = 1024**3
MIB = 1024**2


def _raw(path: Path, size: int = MIB) -> Path:
    path.write_bytes(raw_bytes(size))
    return path


def _identical(a: Path, b: Path) -> bool:
    compared = subprocess.run(["qemu-img", "compare", "-q", str(a), str(b)], check=False)
    return compared.returncode == 0


def test_info_reads_format_and_size(tmp_path: Path) -> None:
    found = disks.info(qcow2(tmp_path / "a.qcow2", "16M"))
    assert (found.format, found.virtual_size, found.backing_file) == ("qcow2", 16 * MIB, None)
    assert disks.info(_raw(tmp_path / "b.raw"), "raw").format == "raw"


def test_info_of_a_missing_file_carries_qemu_img_stderr(tmp_path: Path) -> None:
    with pytest.raises(VirtError, match=r"qemu-img info of .*nothing failed: .*No such file"):
        disks.info(tmp_path / "nothing")


def test_overlay_backs_onto_the_base_at_the_flavor_size(tmp_path: Path) -> None:
    base = qcow2(tmp_path / "base", "16M")
    disks.create_overlay(base, "qcow2", tmp_path / "disk", 1)
    found = disks.info(tmp_path / "disk")
    assert (found.format, found.virtual_size) == ("qcow2", GIB)
    assert disks.backing_file(tmp_path / "disk") == base


def test_overlay_is_never_smaller_than_the_image(tmp_path: Path) -> None:
    base = _raw(tmp_path / "base", 2 * MIB)
    disks.create_overlay(base, "raw", tmp_path / "zero", 0)
    assert disks.info(tmp_path / "zero").virtual_size == 2 * MIB
    big = qcow2(tmp_path / "big", "2G")
    disks.create_overlay(big, "qcow2", tmp_path / "small-flavor", 1)
    assert disks.info(tmp_path / "small-flavor").virtual_size == 2 * GIB


def test_overlay_on_a_base_of_another_format_fails(tmp_path: Path) -> None:
    base = _raw(tmp_path / "base")
    with pytest.raises(VirtError, match="qemu-img info of"):
        disks.create_overlay(base, "qcow2", tmp_path / "disk", 1)
    assert not (tmp_path / "disk").exists()


def test_blank_disk_is_qcow2_of_the_size(tmp_path: Path) -> None:
    disks.create_blank(tmp_path / "eph", 2)
    found = disks.info(tmp_path / "eph")
    assert (found.format, found.virtual_size, found.backing_file) == ("qcow2", 2 * GIB, None)
    with pytest.raises(VirtError, match="needs a size"):
        disks.create_blank(tmp_path / "none", 0)


def test_resize_grows_and_refuses_to_shrink(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disks.create_overlay(qcow2(tmp_path / "base", "16M"), "qcow2", disk, 1)
    disks.resize(disk, 3)
    assert disks.info(disk).virtual_size == 3 * GIB
    disks.resize(disk, 3)
    disks.resize(disk, 0)
    assert disks.info(disk).virtual_size == 3 * GIB
    with pytest.raises(VirtError, match="cannot shrink"):
        disks.resize(disk, 2)
    assert disks.info(disk).virtual_size == 3 * GIB


def test_convert_flattens_an_overlay(tmp_path: Path) -> None:
    base = _raw(tmp_path / "base", 4 * MIB)
    disk = tmp_path / "disk"
    disks.create_overlay(base, "raw", disk, 0)
    subprocess.run(["qemu-io", "-f", "qcow2", "-c", "write -P 0x5a 1M 64k", str(disk)],
                   check=True, capture_output=True)  # fmt: skip
    flat = tmp_path / "flat.qcow2"
    disks.convert(disk, flat)
    found = disks.info(flat)
    assert (found.format, found.backing_file) == ("qcow2", None)
    assert _identical(disk, flat)
    assert not _identical(base, flat)


def test_failed_convert_leaves_no_partial_file(tmp_path: Path) -> None:
    base = qcow2(tmp_path / "base", "16M")
    with pytest.raises(VirtError, match="qemu-img convert of"):
        disks.convert(base, tmp_path / "out", "no-such-format")
    assert not (tmp_path / "out").exists()
