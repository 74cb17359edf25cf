"""Security groups on Linux bridges as two nftables tables, generated whole.

``table bridge <name>`` holds the ports' chains and dispatches to them by
interface name in the bridge's forward hook (port to port) and its input
and output hooks (the host's own address on the bridge): frames from a tap
meet its egress chain, frames to a tap its ingress chain. Ports with port
security off, and the network service's own ports (``network:*`` owners,
trusted as in Neutron), are not filtered; a port that is administratively
down, or a tap on our bridges that no desired port explains, is dropped
both ways.

``table inet <name>`` exports connection tracking to the bridge table:
br_netfilter runs bridged IPv4/IPv6 frames through the IP hooks, where
conntrack is, and its prerouting and output chains copy the state into mark
bits (``CT_*``) for frames on our bridges. A bridge table could ask ``ct
state`` itself only where the kernel has nf_conntrack_bridge, which this
one (and others built without modules) lack.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from saphira.network.l2.errors import L2Error
from saphira.network.l2.nft_model import (
    CT_BITS,
    CT_ESTABLISHED,
    CT_INVALID,
    Chain,
    NftSet,
    Table,
    replace_script,
)
from saphira.network.l2.nft_port import port_chains
from saphira.objects.network import PortDetails

LOG = logging.getLogger(__name__)
TABLE = "saphira"
TAP_PREFIX = "tap"
TAP_LEN = 14  # Nova's and Neutron's tap + 11 characters of the port id
BASE = "type filter hook {hook} priority {priority}; policy accept;"


def tap_name(port_id: str) -> str:
    return (TAP_PREFIX + port_id)[:TAP_LEN]


def filtered(port: PortDetails) -> bool:
    return port.port_security_enabled and not port.device_owner.startswith("network:")


@dataclass
class Ruleset:
    tables: tuple[Table, ...]  # empty when no port needs filtering: remove ours
    failed: dict[str, str] = field(default_factory=dict)  # port id -> why it is dropped
    taps: dict[str, str] = field(default_factory=dict)  # tap -> port id, filtered or dropped

    @property
    def script(self) -> str:
        return replace_script(self.tables)


def ruleset_for(
    ports: Sequence[PortDetails],
    *,
    bridges: Collection[str] = (),
    isolated: Collection[str] = (),
    table: str = TABLE,
) -> str:
    """The nft script that makes the host filter ``ports`` (and drop ``isolated`` taps).

    ``bridges`` scopes the connection-state export; an empty script means
    there is nothing to filter.
    """
    return build(ports, bridges=bridges, isolated=isolated, table=table).script


def build(
    ports: Sequence[PortDetails],
    *,
    bridges: Collection[str],
    isolated: Collection[str] = (),
    table: str = TABLE,
) -> Ruleset:
    ruleset = Ruleset(())
    chains: list[Chain] = []
    verdicts: dict[str, tuple[str, str]] = {tap: ("drop", "drop") for tap in isolated}
    for port in sorted(ports, key=lambda p: tap_name(p.port_id)):
        tap = tap_name(port.port_id)
        if not filtered(port) and port.admin_state_up:
            continue
        ruleset.taps[tap] = port.port_id
        verdicts[tap] = ("drop", "drop")
        if not port.admin_state_up:
            continue
        try:
            egress, ingress = port_chains(port, tap)
        except L2Error as error:
            LOG.warning("port %s is dropped: %s", port.port_id, error.message)
            ruleset.failed[port.port_id] = error.message
            continue
        chains += [egress, ingress]
        verdicts[tap] = (f"jump {egress.name}", f"jump {ingress.name}")
    if verdicts:
        ruleset.tables = (
            Table("bridge", table, (*chains, *dispatch(verdicts))),
            Table("inet", table, state_export(bridges)),
        )
    return ruleset


def dispatch(verdicts: dict[str, tuple[str, str]]) -> tuple[Chain, ...]:
    """Base chains sending each tap's frames to its chains: ``{tap: (egress, ingress)}``."""

    def vmap(key: str, which: int) -> str:
        entries = ", ".join(f'"{tap}" : {verdicts[tap][which]}' for tap in sorted(verdicts))
        return f"{key} vmap {{ {entries} }}"

    def base(hook: str) -> str:
        return BASE.format(hook=hook, priority="filter")

    return (
        Chain("forward", (vmap("iifname", 0), vmap("oifname", 1)), base("forward")),
        Chain("input", (vmap("iifname", 0),), base("input")),
        Chain("output", (vmap("oifname", 1),), base("output")),
    )


def state_export(bridges: Collection[str]) -> tuple[Chain, ...]:
    """Prerouting (bridged and arriving frames) and output (the host's own) chains.

    At mangle priority conntrack (-200) has already looked at the packet.
    """
    names = NftSet("bridges", "ifname", tuple(f'"{b}"' for b in sorted(bridges)), interval=False)

    def rules(key: str) -> tuple[str, ...]:
        scope, mark = f"{key} @bridges", "meta mark set meta mark"
        return (
            f"{scope} {mark} & {~CT_BITS & 0xFFFFFFFF:#010x}",
            f"{scope} ct state established,related {mark} | {CT_ESTABLISHED:#010x}",
            f"{scope} ct state invalid {mark} | {CT_INVALID:#010x}",
        )

    def chain(name: str, key: str) -> Chain:
        return Chain(name, rules(key), BASE.format(hook=name, priority="mangle"), (names,))

    return chain("prerouting", "iifname"), chain("output", "oifname")
