"""A server of an AMI-style image boots its recorded kernel, ramdisk and command line."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from saphira.domain import direct_boot
from saphira.virt.libvirt import domain
from saphira.virt.libvirt.config import DomainConfig, from_xml, to_xml
from saphira.virt.libvirt.paths import InstanceFiles
from tests.unit.metadata.samples import instance

SETTINGS = domain.GuestSettings("qemu", None)
FILES = InstanceFiles.of(Path("/srv/instances"), "u-1")


def _built(sysmeta: dict[str, str]) -> DomainConfig:
    made = dataclasses.replace(instance(), system_metadata=sysmeta)
    built = domain.build(made, made.flavor, FILES, (), SETTINGS, "h1")
    assert from_xml(to_xml(built)) == built
    return built


@pytest.mark.parametrize(
    ("sysmeta", "expected"),
    [
        ({}, (None, None, None)),
        (
            {direct_boot.KERNEL_KEY: "k", direct_boot.RAMDISK_KEY: "r",
             direct_boot.CMDLINE_KEY: "console=ttyS0"},
            ("/srv/instances/u-1/kernel", "/srv/instances/u-1/ramdisk", "console=ttyS0"),
        ),
        (
            {direct_boot.KERNEL_KEY: "k"},
            ("/srv/instances/u-1/kernel", None, direct_boot.DEFAULT_CMDLINE),
        ),
    ],
)  # fmt: skip
def test_the_os_element_follows_what_the_server_recorded(
    sysmeta: dict[str, str], expected: tuple[str | None, ...]
) -> None:
    built = _built(sysmeta)
    assert (built.kernel, built.initrd, built.cmdline) == expected
    assert built.disks[0].target == "vda"  # the disk stays the root disk either way


def test_image_properties_become_the_recorded_entries() -> None:
    ami = {"kernel_id": "k", "ramdisk_id": "r", "os_command_line": "quiet", "name": "x"}
    assert direct_boot.system_metadata(ami) == {
        direct_boot.KERNEL_KEY: "k", direct_boot.RAMDISK_KEY: "r", direct_boot.CMDLINE_KEY: "quiet"
    }  # fmt: skip
    assert direct_boot.system_metadata({"ramdisk_id": "r"}) == {}  # no kernel: a disk boot
    assert direct_boot.referenced(ami) == ("k", "r")
    recorded = direct_boot.system_metadata(ami)
    assert direct_boot.image_properties({**recorded, "security_groups": "[]"}) == {
        "kernel_id": "k", "ramdisk_id": "r", "os_command_line": "quiet"
    }  # fmt: skip
    old = {"security_groups": "[]", direct_boot.CMDLINE_KEY: "old"}
    assert direct_boot.rebuilt(old, {"kernel_id": "k2"}) == {
        "security_groups": "[]", direct_boot.KERNEL_KEY: "k2"
    }  # fmt: skip
