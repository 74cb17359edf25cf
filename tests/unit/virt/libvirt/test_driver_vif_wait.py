"""spawn with NICs starts the guest paused and lets it run only once its ports are up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import libvirt
import pytest

from saphira.objects import Flavor, Instance
from saphira.virt.errors import VirtualInterfaceCreateFailed
from saphira.virt.libvirt.domain import GuestSettings
from saphira.virt.libvirt.driver import LibvirtDriver, Settings
from saphira.virt.types import VIF, ImageMeta
from tests.unit.virt.libvirt.fake_images import FakeImages

NIC = (VIF("port-1", "fa:16:3e:00:00:01", vif_type="ovs", bridge="br-physnet1"),)


class _Domain:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def createWithFlags(self, flags: int) -> None:  # noqa: N802 - libvirt's name
        assert flags == libvirt.VIR_DOMAIN_START_PAUSED
        self.calls.append("start paused")

    def create(self) -> None:
        self.calls.append("start")

    def resume(self) -> None:
        self.calls.append("resume")


@pytest.fixture
def driver(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[LibvirtDriver, _Domain]:
    """A driver whose disks, definition and removal are stubbed (no libvirtd needed)."""
    settings = Settings(instances_path=tmp_path / "instances", guest=GuestSettings("qemu", None))
    drv = LibvirtDriver("h", "h", settings, FakeImages())
    dom = _Domain()
    monkeypatch.setattr(drv, "_create_disks", lambda *args: None)
    monkeypatch.setattr(drv, "_define", lambda *args: dom)
    monkeypatch.setattr(drv, "_remove", lambda *args: dom.calls.append("removed"))
    return drv, dom


def _spawn(drv: LibvirtDriver, nics: tuple[VIF, ...], wait: Any) -> None:
    instance = Instance("u-1", "p", "u", Flavor("1", "tiny", 1, 128, 1))
    drv.spawn(instance, ImageMeta("img"), nics, vifs_plugged=wait)


def test_paused_until_the_ports_are_plugged(driver: tuple[LibvirtDriver, _Domain]) -> None:
    drv, dom = driver
    _spawn(drv, NIC, lambda: dom.calls.append("waited"))
    assert dom.calls == ["start paused", "waited", "resume"]


def test_a_port_that_never_came_up_removes_the_guest(
    driver: tuple[LibvirtDriver, _Domain],
) -> None:
    drv, dom = driver

    def never() -> None:
        raise VirtualInterfaceCreateFailed(host="h", reason="port-1 never came up")

    with pytest.raises(VirtualInterfaceCreateFailed, match="port-1 never came up"):
        _spawn(drv, NIC, never)
    assert dom.calls == ["start paused", "removed"]


def test_no_nics_nothing_to_wait_for(driver: tuple[LibvirtDriver, _Domain]) -> None:
    drv, dom = driver
    _spawn(drv, (), lambda: dom.calls.append("waited"))
    assert dom.calls == ["start"]
