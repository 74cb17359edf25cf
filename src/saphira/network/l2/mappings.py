"""``bridge_mappings``: which bridge carries which physical network.

Neutron's syntax (``physnet1:br-physnet1,physnet2:br-vlan``), given as one
string or as the list an oslo.config ``ListOpt`` yields. Refused: an item
without both halves, a physical network named twice, a bridge shared by two
physical networks (its flows would mix their segments), a bridge name the
kernel cannot carry (more than 15 characters).
"""

from __future__ import annotations

from collections.abc import Sequence

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
