"""NICs added to and taken from a defined guest (os-interface attach and detach).

Both the persistent definition and, while the guest runs, the live domain
change, so the NIC shows at once and survives a restart. Taking a NIC from a
running guest only *asks* it to let go of the PCI device (ACPI eject):
libvirt may return before the guest did, and a guest still booting can miss
the request. So the live XML is watched until the NIC is gone and the request
repeated meanwhile, as Nova's ``_detach_with_retry`` does; a guest that never
lets go gets its persistent NIC back, so definition and guest agree again.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import libvirt

from saphira.virt.libvirt.config import from_xml

LOG = logging.getLogger(__name__)
DETACH_TIMEOUT = 20.0
RETRY_EVERY = 2.0
_POLL = 0.2
_CONFIG = libvirt.VIR_DOMAIN_AFFECT_CONFIG
_LIVE = libvirt.VIR_DOMAIN_AFFECT_LIVE


def attach(dom: Any, xml: str) -> None:
    dom.attachDeviceFlags(xml, _CONFIG | (_LIVE if dom.isActive() else 0))


def has_nic(dom: Any, mac: str, *, live: bool) -> bool:
    flags = 0 if live else libvirt.VIR_DOMAIN_XML_INACTIVE
    return any(nic.mac.lower() == mac.lower() for nic in from_xml(dom.XMLDesc(flags)).interfaces)


def detach(dom: Any, xml: str, mac: str, timeout: float = DETACH_TIMEOUT) -> bool:
    """Whether the NIC is gone from both; False when a running guest kept it
    for ``timeout`` seconds (its persistent NIC is then put back)."""
    persistent = has_nic(dom, mac, live=False)
    if persistent:
        dom.detachDeviceFlags(xml, _CONFIG)
    gone = False
    try:
        gone = _unplugged(dom, xml, mac, timeout)
    finally:
        if persistent and not gone:
            dom.attachDeviceFlags(xml, _CONFIG)
    return gone


def _unplugged(dom: Any, xml: str, mac: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    asked: float | None = None
    while dom.isActive() and has_nic(dom, mac, live=True):
        now = time.monotonic()
        if now >= deadline:
            return False
        if asked is None or now - asked >= RETRY_EVERY:
            _ask(dom, xml, first=asked is None)
            asked = now
        time.sleep(_POLL)
    return True


def _ask(dom: Any, xml: str, *, first: bool) -> None:
    """A repeated request may meet one still pending ("already in the process of
    unplug"): only the first one's error means anything."""
    try:
        dom.detachDeviceFlags(xml, _LIVE)
    except libvirt.libvirtError as error:
        if first:
            raise
        LOG.debug("repeated NIC detach request: %s", error)
