"""A config drive is a read-only raw CD-ROM on IDE in the domain; none without one."""

from __future__ import annotations

from pathlib import Path

from saphira.virt.libvirt import domain
from saphira.virt.libvirt.config import DiskConfig, from_xml, to_xml
from saphira.virt.libvirt.paths import InstanceFiles
from tests.unit.metadata.samples import instance

SETTINGS = domain.GuestSettings("qemu", None)


def _disks(config_drive: bool) -> tuple[DiskConfig, ...]:
    files = InstanceFiles.of(Path("/srv/instances"), "u-1")
    made = instance()
    built = domain.build(made, made.flavor, files, (), SETTINGS, "h1", config_drive=config_drive)
    assert from_xml(to_xml(built)) == built
    return built.disks


def test_the_drive_is_a_readonly_ide_cdrom() -> None:
    disks = _disks(True)
    assert disks[-1] == DiskConfig("/srv/instances/u-1/disk.config", "hda", "raw", "ide",
                                   "cdrom", readonly=True)  # fmt: skip
    assert [d.device for d in disks] == ["disk", "cdrom"]


def test_no_drive_no_cdrom() -> None:
    assert [d.device for d in _disks(False)] == ["disk"]
