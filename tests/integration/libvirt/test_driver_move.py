"""A resize to another host with real TCG guests: two LibvirtDrivers on this
machine's libvirtd, each with its own instances_path (two hosts that share no
storage), the disks sent through the destination's one-time receiver. A marker
written into the guest's disk before the move is read back on the destination,
and the guest boots there."""

from __future__ import annotations

import dataclasses
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from saphira.guest_image import GuestImage
from saphira.objects import Instance
from saphira.virt.libvirt import disks
from saphira.virt.libvirt.domain import GuestSettings
from saphira.virt.libvirt.driver import LibvirtDriver, Settings
from saphira.virt.libvirt.paths import InstanceFiles
from saphira.virt.types import Migration
from tests.integration.libvirt import guests
from tests.integration.libvirt.guests import TINY, assert_gone, boots, instance, meta

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("libvirt")]

MARK_AT = "900M"  # past the image's data: only the overlay holds it


def _driver(root: Path, host: str, source: guests.FileSource) -> LibvirtDriver:
    settings = Settings(instances_path=root / host, guest=GuestSettings("qemu", "127.0.0.1"),
                        shutdown_timeout=30, migration_address="127.0.0.1")  # fmt: skip
    drv = LibvirtDriver(host, host, settings, source)
    drv.init_host()
    return drv


@pytest.fixture(scope="module")
def pair(tiny_image: GuestImage) -> Iterator[tuple[LibvirtDriver, LibvirtDriver]]:
    source = guests.FileSource.tiny(tiny_image)
    with guests.qemu_reachable_dir("move") as root:
        a, b = _driver(root, "host-a", source), _driver(root, "host-b", source)
        yield a, b
        a.cleanup_host()
        b.cleanup_host()


def _qemu_io(disk: Path, command: str) -> str:
    shared = ["-r", "-U"] if command.startswith("read") else []  # the guest may run
    done = subprocess.run(["qemu-io", *shared, "-f", "qcow2", "-c", command, str(disk)],
                          capture_output=True, text=True, check=False, timeout=60)  # fmt: skip
    return done.stdout + done.stderr


def _files(drv: LibvirtDriver, inst: Instance) -> InstanceFiles:
    return InstanceFiles.of(drv.settings.instances_path, inst.uuid)


def test_a_guest_moves_its_disk_to_another_host_and_back(
    pair: tuple[LibvirtDriver, LibvirtDriver],
) -> None:
    """Moved, then reverted: the written mark travels and the source starts again. A move
    confirmed between real nodes is the test bed's (tests/integration/testbed, the cold
    migration with a marker on the disk)."""
    a, b = pair
    inst = instance()
    a.spawn(inst, meta(), ())
    try:
        boots(a, inst, 1)
        a.power_off(inst, timeout=30)
        written = _qemu_io(_files(a, inst).disk, f"write -P 0x5a {MARK_AT} 64k")
        assert "wrote 65536/65536" in written, written
        migration = Migration("m-1", "host-a", "host-a", "host-b", "host-b", TINY, TINY)
        migration = dataclasses.replace(
            migration, target=b.prepare_migration_target(inst, migration)
        )
        a.migrate_disk_and_power_off(inst, migration, TINY)
        b.finish_migration(inst, migration, meta(), (), power_on=True)
        boots(b, inst, 1)
        moved = _files(b, inst).disk
        assert _qemu_io(moved, f"read -P 0x5a {MARK_AT} 64k").startswith("read 65536/65536")
        base = disks.backing_file(moved)
        assert base is not None and base.is_relative_to(b.settings.instances_path)
        assert inst.uuid in b.list_instances()
        b.destroy(inst, ())  # revert: the destination's guest goes, the source starts again
        a.finish_revert_migration(inst, migration, (), power_on=True)
        boots(a, inst, 2)
        assert not _files(b, inst).directory.exists()
        assert _qemu_io(_files(a, inst).disk, f"read -P 0x5a {MARK_AT} 64k").startswith(
            "read 65536/65536"
        )
    finally:
        b.destroy(inst, ())
        a.destroy(inst, ())
    assert_gone(a, inst)
    assert_gone(b, inst)
