"""The tiny guest reads a config drive (ISO 9660, label config-2) on a CD-ROM, as
the libvirt driver attaches it, and prints what it read there."""

from __future__ import annotations

from pathlib import Path

import pytest

from saphira.guest_image import READY, GuestImage
from saphira.virt import configdrive
from tests.integration.guest.qemu import Guest, direct_boot_args
from tests.unit.metadata.samples import KEY, UUID, instance

pytestmark = pytest.mark.integration


def test_the_guest_reads_meta_data_user_data_and_key_from_the_drive(
    tiny_image: GuestImage, workdir: Path
) -> None:
    drive = workdir / configdrive.FILE_NAME
    server = instance(display_name="Drive VM", hostname="drive-vm")  # the guest takes hostname
    configdrive.write(drive, server, configdrive.DriveSettings())
    args = direct_boot_args(tiny_image.vmlinux, tiny_image.initramfs, tiny_image.cmdline)
    cdrom = ["-drive", f"file={drive},format=raw,if=ide,media=cdrom,readonly=on"]
    with Guest(workdir, [*args, "-nic", "none", *cdrom]) as guest:
        out = guest.wait_for(READY)
    assert "SAPHIRA-GUEST: config drive /dev/sr0" in out
    assert f'SAPHIRA-GUEST: meta_data.json (config-drive) {{"uuid": "{UUID}"' in out
    assert "SAPHIRA-GUEST: user_data (config-drive) #!/bin/sh echo hello from user data" in out
    assert f"SAPHIRA-GUEST: ssh key (config-drive) {KEY}" in out
    assert "SAPHIRA-GUEST: hostname drive-vm" in out


def test_without_a_drive_the_metadata_service_is_asked(
    tiny_image: GuestImage, workdir: Path
) -> None:
    args = direct_boot_args(tiny_image.vmlinux, tiny_image.initramfs, tiny_image.cmdline)
    with Guest(workdir, [*args, "-nic", "none"]) as guest:
        out = guest.wait_for(READY)
    assert "config drive" not in out
    assert "SAPHIRA-GUEST: meta_data.json unavailable (metadata-service)" in out
