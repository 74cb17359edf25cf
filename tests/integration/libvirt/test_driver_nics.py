"""LibvirtDriver NIC hotplug against a real TCG guest: a NIC on a Linux bridge the
test makes is attached live and persistently, kept by a hard reboot that is
given it, and detached from both (the guest lets go of the PCI device)."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterator

import libvirt
import pytest

from saphira.guest_image import GuestImage
from saphira.objects import Instance
from saphira.privsep import bridge as bridges
from saphira.privsep import links
from saphira.virt.libvirt.config import from_xml
from saphira.virt.libvirt.domain import GuestSettings
from saphira.virt.libvirt.driver import LibvirtDriver, Settings
from saphira.virt.libvirt.vif import tap_name
from saphira.virt.types import VIF, RebootType
from tests.integration.libvirt import guests
from tests.integration.libvirt.guests import boots

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("libvirt")]


@pytest.fixture(scope="module")
def driver(tiny_image: GuestImage) -> Iterator[LibvirtDriver]:
    source = guests.FileSource.tiny(tiny_image)
    with guests.qemu_reachable_dir("nics") as root:
        settings = Settings(instances_path=root / "instances",
                            guest=GuestSettings("qemu", None), shutdown_timeout=30)  # fmt: skip
        drv = LibvirtDriver("test-host", "test-host", settings, source)
        drv.init_host()
        yield drv
        drv.cleanup_host()


@pytest.fixture
def bridge() -> Iterator[str]:
    name = f"sxbr{secrets.token_hex(4)}"
    bridges.create(name)
    try:
        links.set_up(name)
        yield name
    finally:
        links.delete(name)
    assert links.show(name) is None


def macs(conn: libvirt.virConnect, inst: Instance, *, live: bool) -> list[str]:
    dom = conn.lookupByUUIDString(inst.uuid)
    xml = dom.XMLDesc(0 if live else libvirt.VIR_DOMAIN_XML_INACTIVE)
    return [nic.mac for nic in from_xml(xml).interfaces]


def test_a_nic_comes_and_goes_live_and_persistently(
    driver: LibvirtDriver, server: Instance, bridge: str, libvirt_conn: libvirt.virConnect
) -> None:
    vif = VIF(id=str(uuid.uuid4()), address="fa:16:3e:5a:00:01", vif_type="bridge", bridge=bridge)
    boots(driver, server, 1)
    driver.attach_interface(server, vif)
    assert macs(libvirt_conn, server, live=True) == [vif.address]
    assert macs(libvirt_conn, server, live=False) == [vif.address]
    tap = links.show(tap_name(vif))
    assert tap is not None and tap.master == bridge

    driver.reboot(server, (vif,), RebootType.HARD)  # redefined from the NICs it is given
    boots(driver, server, 2)
    assert macs(libvirt_conn, server, live=True) == [vif.address]
    assert macs(libvirt_conn, server, live=False) == [vif.address]

    driver.detach_interface(server, vif)
    assert macs(libvirt_conn, server, live=True) == []
    assert macs(libvirt_conn, server, live=False) == []
    assert links.show(tap_name(vif)) is None


def test_a_stopped_guest_gets_the_nic_when_it_starts(
    driver: LibvirtDriver, server: Instance, bridge: str, libvirt_conn: libvirt.virConnect
) -> None:
    vif = VIF(id=str(uuid.uuid4()), address="fa:16:3e:5a:00:02", vif_type="bridge", bridge=bridge)
    driver.power_off(server, timeout=0)
    driver.attach_interface(server, vif)
    assert macs(libvirt_conn, server, live=False) == [vif.address]
    driver.power_on(server, (vif,))
    assert macs(libvirt_conn, server, live=True) == [vif.address]
    driver.power_off(server, timeout=0)
    driver.detach_interface(server, vif)
    assert macs(libvirt_conn, server, live=False) == []
