"""NIC hotplug against a stand-in domain: which definitions change, how a guest
that keeps the device is asked again, and that a failed detach puts back what
it took."""

from __future__ import annotations

import libvirt
import pytest

from saphira.virt.libvirt import nics
from saphira.virt.libvirt.config import DomainConfig, InterfaceConfig, interface_xml, to_xml

NIC = InterfaceConfig(mac="fa:16:3e:00:00:07", kind="bridge", source_bridge="sxbr0", mtu=1450)
XML = interface_xml(NIC)
CONFIG, LIVE = libvirt.VIR_DOMAIN_AFFECT_CONFIG, libvirt.VIR_DOMAIN_AFFECT_LIVE


class _Domain:
    """Persistent and live NIC lists; the live one lets go after ``holds`` requests."""

    def __init__(
        self, *, active: bool = True, holds: int = 0, refuse: bool = False, late: bool = False
    ) -> None:
        """``refuse``: every live request fails; ``late``: the guest lets go of the
        first request while libvirt refuses the second as still pending."""
        self.active, self.holds, self.refuse, self.late = active, holds, refuse, late
        self.persistent: list[InterfaceConfig] = []
        self.live: list[InterfaceConfig] = []
        self.calls: list[tuple[str, int]] = []

    def isActive(self) -> bool:  # noqa: N802 - libvirt's names
        return self.active

    def XMLDesc(self, flags: int) -> str:  # noqa: N802
        nics = self.persistent if flags & libvirt.VIR_DOMAIN_XML_INACTIVE else self.live
        return to_xml(DomainConfig("d", "u", "qemu", 128, 1, interfaces=tuple(nics)))

    def attachDeviceFlags(self, xml: str, flags: int) -> None:  # noqa: N802
        assert xml == XML
        self.calls.append(("attach", flags))
        if flags & CONFIG:
            self.persistent.append(NIC)
        if flags & LIVE:
            self.live.append(NIC)

    def detachDeviceFlags(self, xml: str, flags: int) -> None:  # noqa: N802
        assert xml == XML
        self.calls.append(("detach", flags))
        if flags & CONFIG:
            self.persistent.remove(NIC)
        if flags & LIVE:
            if self.late and self.calls.count(("detach", LIVE)) == 2:
                self.live.remove(NIC)
            if self.refuse or (self.late and NIC not in self.live):
                raise libvirt.libvirtError("device is already in the process of unplug")
            self.holds -= 1
            if self.holds < 0:
                self.live.remove(NIC)


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nics, "RETRY_EVERY", 0.01)
    monkeypatch.setattr(nics, "_POLL", 0.001)


def test_the_interface_element_is_the_one_a_domain_carries() -> None:
    domain = to_xml(DomainConfig("d", "u", "qemu", 128, 1, interfaces=(NIC,)))
    assert XML.replace("\n", "").replace(" ", "") in domain.replace("\n", "").replace(" ", "")


def test_attach_changes_the_live_guest_only_while_it_runs() -> None:
    running, stopped = _Domain(), _Domain(active=False)
    nics.attach(running, XML)
    nics.attach(stopped, XML)
    assert running.calls == [("attach", CONFIG | LIVE)] and stopped.calls == [("attach", CONFIG)]
    assert nics.has_nic(running, NIC.mac.upper(), live=True)
    assert not nics.has_nic(stopped, NIC.mac, live=True)


def test_detach_asks_again_until_the_guest_lets_go() -> None:
    dom = _Domain(holds=2)
    nics.attach(dom, XML)
    assert nics.detach(dom, XML, NIC.mac, timeout=5)
    assert dom.calls[1:] == [("detach", CONFIG)] + [("detach", LIVE)] * 3
    assert dom.persistent == dom.live == []


def test_a_guest_that_keeps_the_nic_gets_its_definition_back() -> None:
    dom = _Domain(holds=10**6)
    nics.attach(dom, XML)
    assert not nics.detach(dom, XML, NIC.mac, timeout=0.05)
    assert dom.persistent == dom.live == [NIC]


def test_a_refused_first_request_fails_and_restores() -> None:
    dom = _Domain(refuse=True)
    nics.attach(dom, XML)
    with pytest.raises(libvirt.libvirtError):
        nics.detach(dom, XML, NIC.mac)
    assert dom.persistent == [NIC]


def test_a_stopped_guest_only_loses_its_definition() -> None:
    dom = _Domain(active=False)
    nics.attach(dom, XML)
    assert nics.detach(dom, XML, NIC.mac)
    assert dom.calls == [("attach", CONFIG), ("detach", CONFIG)] and dom.persistent == []


def test_a_repeated_request_may_fail_quietly() -> None:
    dom = _Domain(holds=10**6, late=True)
    nics.attach(dom, XML)
    assert nics.detach(dom, XML, NIC.mac, timeout=5)
    assert dom.persistent == dom.live == []
