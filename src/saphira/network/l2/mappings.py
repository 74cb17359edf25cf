"""``bridge_mappings``: which bridge carries which physical network.

Neutron's syntax (``physnet1:br-physnet1,physnet2:br-vlan``), given as one
string or as the list an oslo.config ``ListOpt`` yields. Refused: an item
without both halves, a physical network named twice, a bridge shared by two
physical networks (its flows would mix their segments), a bridge name the
kernel cannot carry (more than 15 characters).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence

from oslo_config import cfg

from saphira.network.l2.errors import L2Error

MAX_NAME = 15  # IFNAMSIZ - 1: the bridge's own port is a network device


def parse_bridge_mappings(value: str | Sequence[str]) -> dict[str, str]:
    """``{physical network: bridge}``; L2Error naming the bad item."""
    items = value.split(",") if isinstance(value, str) else list(value)
    mappings: dict[str, str] = {}
    for item in (item.strip() for item in items):
        if not item:
            continue
        physnet, sep, bridge = (part.strip() for part in item.partition(":"))
        if not sep or not physnet or not bridge or ":" in bridge:
            raise L2Error(detail=f"bridge_mappings: {item!r} is not <physical network>:<bridge>")
        if physnet in mappings:
            raise L2Error(detail=f"bridge_mappings: {physnet} is mapped twice")
        if bridge in mappings.values():
            raise L2Error(detail=f"bridge_mappings: {bridge} serves two physical networks")
        if len(bridge) > MAX_NAME:
            raise L2Error(detail=f"bridge_mappings: {bridge} is longer than {MAX_NAME} characters")
        mappings[physnet] = bridge
    return mappings


def mechanism(conf: cfg.ConfigOpts) -> str | None:
    """The L2 mechanism this host's agents use: the first of ``[ml2] mechanism_drivers``
    it has, or None (Open vSwitch preferred but not installed, and nothing else allowed)."""
    for name in conf.ml2.mechanism_drivers:
        if name == "linuxbridge" or shutil.which("ovs-vsctl") is not None:
            return str(name)
    return None


def host_bridge_mappings(conf: cfg.ConfigOpts, chosen: str | None = None) -> dict[str, str]:
    """The mappings of the mechanism in use: ``[linux_bridge]``'s or ``[ovs]``'s."""
    group = conf.linux_bridge if (chosen or mechanism(conf)) == "linuxbridge" else conf.ovs
    return parse_bridge_mappings(group.bridge_mappings)
