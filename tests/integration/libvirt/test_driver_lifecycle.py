"""LibvirtDriver against real TCG guests: every lifecycle step, proved on the console.

The tiny guest prints ``booted ... cpus=N mem_kb=M`` at each boot and the ACPI
marker when its power button is pressed, so the console log shows what really
happened to it, not just what libvirt reports. Stop, start, both reboots and a resize
reverted then confirmed are proved once, through the whole cloud, in
tests/functional/test_cloud_libvirt.py (a guest here would boot the same steps again).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from pathlib import Path

import libvirt
import pytest

from saphira.domain.states import PowerState
from saphira.exception import ImageNotFound
from saphira.guest_image import BOOTED, CMDLINE, GuestImage
from saphira.objects import ConsoleType, Instance
from saphira.virt.errors import VirtError
from saphira.virt.libvirt import disks
from saphira.virt.libvirt.config import from_xml
from saphira.virt.libvirt.domain import GuestSettings
from saphira.virt.libvirt.driver import LibvirtDriver, Settings
from saphira.virt.libvirt.paths import InstanceFiles
from saphira.virt.types import ImageData, LifecycleEvent
from tests.integration.libvirt import guests
from tests.integration.libvirt.guests import (
    assert_gone,
    boots,
    instance,
    meta,
    qemu_gone,
    qemu_pids,
    wait_count,
)

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("libvirt")]


@pytest.fixture(scope="module")
def source(tiny_image: GuestImage) -> guests.FileSource:
    return guests.FileSource.tiny(tiny_image, "tiny", "tiny-again")


@pytest.fixture(scope="module")
def driver(source: guests.FileSource) -> Iterator[LibvirtDriver]:
    with guests.qemu_reachable_dir("driver") as root:
        settings = Settings(
            instances_path=root / "instances",
            guest=GuestSettings("qemu", "127.0.0.1"),
            shutdown_timeout=30,
        )
        drv = LibvirtDriver("test-host", "test-host", settings, source)
        drv.init_host()
        yield drv
        drv.cleanup_host()


def state(driver: LibvirtDriver, inst: Instance) -> PowerState:
    return driver.get_info(inst).state


def test_pause_suspend_and_snapshot(
    driver: LibvirtDriver, server: Instance, tiny_image: GuestImage
) -> None:
    boots(driver, server, 1)
    driver.pause(server)
    assert state(driver, server) is PowerState.PAUSED
    driver.unpause(server)
    assert state(driver, server) is PowerState.RUNNING
    before = qemu_pids(server.uuid)
    driver.suspend(server)
    assert state(driver, server) is PowerState.SUSPENDED
    assert qemu_gone(server.uuid) == []  # memory is on disk, no QEMU left
    driver.resume(server, ())
    assert state(driver, server) is PowerState.RUNNING
    assert qemu_pids(server.uuid) not in ([], before)  # restored by a new QEMU...
    assert guests.console(driver, server).count(BOOTED) == 1  # ...without booting again
    uploads: list[ImageData] = []
    received = bytearray()

    def upload(data: ImageData) -> None:
        uploads.append(data)
        for chunk in data.chunks:
            received.extend(chunk)

    driver.snapshot(server, "snap-1", upload)
    assert uploads[0].disk_format == "qcow2"
    assert received[:4] == b"QFI\xfb"  # a standalone qcow2 ...
    assert len(received) > 1024 * 1024  # ... carrying the guest's disk, not an empty one
    assert state(driver, server) is PowerState.RUNNING
    assert guests.console(driver, server).count(BOOTED) == 1


def _booted_with(driver: LibvirtDriver, inst: Instance) -> tuple[str | None, str | None]:
    """The kernel and command line of the guest's running domain, as libvirt has it."""
    conn = libvirt.open("qemu:///system")
    try:
        found = from_xml(conn.lookupByUUIDString(inst.uuid).XMLDesc(0))
    finally:
        conn.close()
    return found.kernel, found.cmdline


def test_rebuild_gives_a_new_disk_and_keeps_the_guest(
    driver: LibvirtDriver, server: Instance
) -> None:
    """From a directly booted image to one that boots from its disk: the firmware and
    SYSLINUX on the new disk start the guest, and its kernel copy is gone."""
    boots(driver, server, 1)
    files = InstanceFiles.of(driver.settings.instances_path, server.uuid)
    name = driver.get_info(server).internal_id
    assert disks.backing_file(files.disk) == driver.cache.path_for("tiny").resolve()
    assert _booted_with(driver, server) == (str(files.kernel), CMDLINE)
    assert files.kernel.read_bytes()[:4] == b"\x7fELF"
    driver.rebuild(dataclasses.replace(server, system_metadata={}), meta("tiny-again"), ())
    boots(driver, server, 2)
    assert disks.backing_file(files.disk) == driver.cache.path_for("tiny-again").resolve()
    assert driver.get_info(server).internal_id == name  # the same domain
    assert _booted_with(driver, server) == (None, None)
    assert not files.kernel.exists() and not files.ramdisk.exists()


def test_a_guest_killed_from_outside_is_reported_off(
    driver: LibvirtDriver, server: Instance
) -> None:
    seen: list[LifecycleEvent] = []
    stopped = threading.Event()

    def listener(event: LifecycleEvent) -> None:
        seen.append(event)
        if event.instance_uuid == server.uuid and event.transition == "stopped":
            stopped.set()

    driver.register_event_listener(listener)
    try:
        boots(driver, server, 1)
        conn = libvirt.open("qemu:///system")
        try:
            conn.lookupByUUIDString(server.uuid).destroy()  # what `virsh destroy` does
        finally:
            conn.close()
        assert stopped.wait(10), f"no stopped event; saw {seen}"
    finally:
        driver.register_event_listener(None)
    assert state(driver, server) is PowerState.SHUTDOWN


def test_a_failed_spawn_leaves_nothing(
    driver: LibvirtDriver, source: guests.FileSource, tmp_path: Path
) -> None:
    inst = instance()
    with pytest.raises(ImageNotFound):
        driver.spawn(inst, meta("no-such-image-in-source"), ())
    assert_gone(driver, inst)
    broken = instance()
    source.images["broken"] = tmp_path / "not-an-image"
    (tmp_path / "not-an-image").write_bytes(b"\0" * 4096)
    with pytest.raises(VirtError):
        driver.spawn(broken, meta("broken"), ())
    assert_gone(driver, broken)


def test_five_guests_at_once_share_one_download(
    driver: LibvirtDriver, source: guests.FileSource
) -> None:
    fresh = "tiny-five"
    source.images[fresh] = source.images["tiny"]
    servers = [instance(image_ref=fresh) for _ in range(5)]
    errors: list[BaseException] = []

    def spawn(inst: Instance) -> None:
        try:
            driver.spawn(inst, meta(fresh), ())
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=spawn, args=(inst,)) for inst in servers]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert errors == []
        assert source.opened[fresh] == 1
        for inst in servers:
            boots(driver, inst, 1)
    finally:
        for inst in servers:
            driver.destroy(inst, ())
    for inst in servers:
        assert_gone(driver, inst)


def test_list_instances_sees_only_this_drivers_guests(
    driver: LibvirtDriver, server: Instance, source: guests.FileSource
) -> None:
    with guests.qemu_reachable_dir("other-cloud") as root:
        settings = Settings(instances_path=root / "instances", guest=GuestSettings("qemu", None))
        other = LibvirtDriver("test-host", "test-host", settings, source)
        other.init_host()
        try:
            assert server.uuid in driver.list_instances()
            assert server.uuid not in other.list_instances()
        finally:
            other.cleanup_host()


def test_console_output_and_vnc(driver: LibvirtDriver, server: Instance) -> None:
    wait_count(driver, server, BOOTED, 1)
    assert BOOTED in driver.get_console_output(server)
    console = driver.get_console(server, ConsoleType.NOVNC)
    assert console.host == "127.0.0.1" and console.port >= 5900
