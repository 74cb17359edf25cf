"""LibvirtDriver with [serial_console] enabled, against real TCG guests: each
guest's serial port is a TCP listener of its own from the range, a hard
reboot (a redefinition) keeps it, and a destroyed guest's port is free again."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from saphira.guest_image import GuestImage
from saphira.objects import ConsoleType
from saphira.virt.libvirt.domain import GuestSettings
from saphira.virt.libvirt.driver import LibvirtDriver, Settings
from saphira.virt.libvirt.serial_ports import can_bind
from saphira.virt.types import RebootType
from tests.integration.libvirt import guests
from tests.integration.libvirt.guests import assert_gone, instance, meta

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("libvirt")]


def _free_range(count: int) -> range:
    """``count`` consecutive ports nothing listens on now, above the usual ones."""
    for first in range(31000, 40000, count):
        ports = range(first, first + count)
        if all(can_bind("127.0.0.1", port) for port in ports):
            return ports
    raise AssertionError("no free port range")


@pytest.fixture(scope="module")
def driver(tiny_image: GuestImage) -> Iterator[LibvirtDriver]:
    source = guests.FileSource.tiny(tiny_image)
    with guests.qemu_reachable_dir("serial") as root:
        settings = Settings(
            instances_path=root / "instances",
            guest=GuestSettings("qemu", None, serial_listen="127.0.0.1"),
            shutdown_timeout=30,
            serial_ports=_free_range(3),
        )
        drv = LibvirtDriver("test-host", "test-host", settings, source)
        drv.init_host()
        yield drv
        drv.cleanup_host()


def test_each_guest_gets_its_own_port_kept_across_a_hard_reboot(driver: LibvirtDriver) -> None:
    first, second = instance(), instance()
    try:
        for inst in (first, second):
            driver.spawn(inst, meta(), ())
        ports = [driver.get_console(inst, ConsoleType.SERIAL) for inst in (first, second)]
        assert [p.host for p in ports] == ["127.0.0.1"] * 2
        assert ports[0].port != ports[1].port
        assert {p.port for p in ports} <= set(driver.settings.serial_ports)
        with socket.create_connection(("127.0.0.1", ports[0].port), timeout=10):
            pass  # QEMU listens there
        driver.reboot(first, (), RebootType.HARD)
        assert driver.get_console(first, ConsoleType.SERIAL) == ports[0]
        driver.destroy(first, ())
        third = instance()
        driver.spawn(third, meta(), ())
        try:
            assert driver.get_console(third, ConsoleType.SERIAL) == ports[0]  # free again
        finally:
            driver.destroy(third, ())
    finally:
        for inst in (first, second):
            driver.destroy(inst, ())
    for inst in (first, second):
        assert_gone(driver, inst)
