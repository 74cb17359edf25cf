"""Provider bridges and the guests' ports on them (Open vSwitch).

The kernel datapath is the fast one, but some hosts lack its module (this
project's CI among them) and cannot load it; the userspace datapath
(``netdev``) works everywhere. ``auto`` asks the kernel (``ovs-dpctl show``
fails without the module) and says which it chose and why.

Guest ports are found the way libvirt's ``<virtualport type='openvswitch'>``
marks them: ``external_ids:iface-id`` is the network service's port id.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from saphira.privsep import ovs

LOG = logging.getLogger(__name__)
KERNEL, USERSPACE = "system", "netdev"


@dataclass(frozen=True)
class BridgeInfo:
    name: str
    datapath_type: str  # "system" or "netdev"
    reason: str  # why that datapath: configured, or what the probe found


def choose_datapath_type() -> tuple[str, str]:
    """(datapath type, why): the kernel's when its module answers, else userspace."""
    error = ovs.kernel_datapath_error()
    if error is None:
        return KERNEL, "the kernel datapath answers (ovs-dpctl show)"
    said = error.splitlines()[0].split("|")[-1].strip()  # its first complaint, sans log prefix
    return USERSPACE, f"no kernel datapath ({said}): the userspace one"


def ensure_bridge(name: str, datapath_type: str = "auto") -> BridgeInfo:
    """Create ``name`` or bring it to ``datapath_type`` with fail_mode secure; idempotent.

    A bridge already right is not touched (changing the datapath type of a
    bridge re-creates its datapath, which interrupts its traffic).
    """
    if datapath_type == "auto":
        chosen, reason = choose_datapath_type()
    else:
        chosen, reason = datapath_type, "configured"
    current = ovs.bridge(name) or {}
    if (current.get("datapath_type") or KERNEL, current.get("fail_mode")) != (chosen, "secure"):
        ovs.add_bridge(name, chosen)
        LOG.info("bridge %s: %s datapath, %s", name, chosen, reason)
    return BridgeInfo(name, chosen, reason)


def by_iface_id(interfaces: list[ovs.Interface]) -> dict[str, ovs.Interface]:
    """The ports that stand for a network-service port, by that port's id."""
    return {i.external_ids["iface-id"]: i for i in interfaces if "iface-id" in i.external_ids}


def find_port(bridge: str, iface_id: str) -> ovs.Interface | None:
    return by_iface_id(ovs.interfaces(bridge)).get(iface_id)


def set_vlans(tags: dict[str, int | None]) -> None:
    """Access VLANs of guest ports (by OVS port name); the uplink stays a trunk (no tag)."""
    if tags:
        ovs.set_tags(tags)
