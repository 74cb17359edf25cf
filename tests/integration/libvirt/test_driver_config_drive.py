"""A real TCG guest booted with a config drive (``config_drive`` asked on create, user
data and a key) prints what it read from the drive; a rebuild writes the drive
again with what changed; the drive goes with the guest."""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Iterator

import pytest

from saphira.guest_image import READY, GuestImage
from saphira.virt.libvirt.domain import GuestSettings
from saphira.virt.libvirt.driver import LibvirtDriver, Settings
from saphira.virt.libvirt.paths import InstanceFiles
from tests.integration.libvirt import guests
from tests.integration.libvirt.guests import assert_gone, instance, meta, wait_count

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("libvirt")]

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGNvbmZpZy1kcml2ZS10ZXN0 drive@saphira"
USER_DATA = b"#!/bin/sh\necho user-data-from-the-config-drive\n"
REBUILT = b"#!/bin/sh\necho user-data-after-the-rebuild\n"


@pytest.fixture(scope="module")
def driver(tiny_image: GuestImage) -> Iterator[LibvirtDriver]:
    source = guests.FileSource.tiny(tiny_image)
    with guests.qemu_reachable_dir("drive") as root:
        settings = Settings(root / "instances", GuestSettings("qemu", None), shutdown_timeout=30)
        drv = LibvirtDriver("test-host", "test-host", settings, source)
        drv.init_host()
        yield drv
        drv.cleanup_host()


def test_the_guest_prints_user_data_and_key_read_from_its_config_drive(
    driver: LibvirtDriver,
) -> None:
    inst = dataclasses.replace(
        instance(), display_name="drive-guest", hostname="drive-guest", config_drive="True",
        key_name="drive-key", key_data=KEY, user_data=base64.b64encode(USER_DATA).decode(),
    )  # fmt: skip
    files = InstanceFiles.of(driver.settings.instances_path, inst.uuid)
    driver.spawn(inst, meta(), ())
    try:
        assert files.config_drive.is_file()
        out = wait_count(driver, inst, READY, 1)
        assert "SAPHIRA-GUEST: config drive /dev/sr0" in out
        assert f'meta_data.json (config-drive) {{"uuid": "{inst.uuid}"' in out
        assert "user_data (config-drive) #!/bin/sh echo user-data-from-the-config-drive" in out
        assert f"SAPHIRA-GUEST: ssh key (config-drive) {KEY}" in out
        rebuilt = dataclasses.replace(inst, user_data=base64.b64encode(REBUILT).decode())
        driver.rebuild(rebuilt, meta(), ())
        out = wait_count(driver, inst, READY, 2)
        assert "user_data (config-drive) #!/bin/sh echo user-data-after-the-rebuild" in out
    finally:
        driver.destroy(inst, ())
    assert_gone(driver, inst)


def test_no_drive_unless_asked(driver: LibvirtDriver) -> None:
    inst = instance()
    files = InstanceFiles.of(driver.settings.instances_path, inst.uuid)
    driver.spawn(inst, meta(), ())
    try:
        assert files.disk.is_file() and not files.config_drive.exists()
        xml = files.domain_xml.read_text()
        assert "cdrom" not in xml
    finally:
        driver.destroy(inst, ())
    assert_gone(driver, inst)
