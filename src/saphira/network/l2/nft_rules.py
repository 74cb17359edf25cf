"""One security group rule as an nft match, for a port's ingress or egress chain.

Remote groups arrive resolved (``remote_addresses``); they become named sets
called after their content, so ports sharing a group share one set and a
changed membership renames it, which changes every chain that reads it.
"""

from __future__ import annotations

import hashlib
import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

from saphira.network.l2.errors import L2Error
from saphira.network.l2.nft_model import NftSet
from saphira.objects.network import SecurityRule

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# Neutron's protocol names (neutron_lib.constants.IP_PROTOCOL_MAP).
PROTOCOLS = {
    "ah": 51, "dccp": 33, "egp": 8, "esp": 50, "gre": 47, "hopopt": 0, "icmp": 1, "igmp": 2,
    "ipip": 4, "ipv6-encap": 41, "ipv6-frag": 44, "ipv6-icmp": 58, "icmpv6": 58,
    "ipv6-nonxt": 59, "ipv6-opts": 60, "ipv6-route": 43, "ospf": 89, "pgm": 113, "rsvp": 46,
    "sctp": 132, "tcp": 6, "udp": 17, "udplite": 136, "vrrp": 112,
}  # fmt: skip
ANY = {"", "any", "0"}  # Neutron stores "any" and 0 as "every protocol"
WITH_PORTS = {6, 17, 33, 132, 136}
ICMP, ICMPV6 = 1, 58
FAMILIES = {"IPv4": ("ip", 4), "IPv6": ("ip6", 6)}


@dataclass(frozen=True)
class Match:
    text: str  # "meta protocol ip meta l4proto 6 th dport 22 ip saddr @remote4-..."
    sets: tuple[NftSet, ...] = ()


def family_of(ethertype: str) -> tuple[str, int]:
    """``("ip", 4)`` or ``("ip6", 6)``."""
    try:
        return FAMILIES[ethertype]
    except KeyError:
        raise L2Error(detail=f"security rule ethertype {ethertype!r} is not IPv4 or IPv6") from None


def collapse(addresses: Iterable[str], version: int) -> list[IPNetwork]:
    """The addresses (or CIDRs) of one IP version, merged: interval sets refuse overlaps."""
    networks = [ipaddress.ip_network(a, strict=False) for a in addresses]
    if version == 4:
        v4 = [n for n in networks if isinstance(n, ipaddress.IPv4Network)]
        return list(ipaddress.collapse_addresses(v4))
    v6 = [n for n in networks if isinstance(n, ipaddress.IPv6Network)]
    return list(ipaddress.collapse_addresses(v6))


def element(network: IPNetwork) -> str:
    """A host as its address (nft prints it so), anything wider as a prefix."""
    return str(network.network_address) if network.num_addresses == 1 else str(network)


def match_for(rule: SecurityRule) -> Match | None:
    """The match for ``rule``; None when it can match nothing (an empty remote group)."""
    family, version = family_of(rule.ethertype)
    words = [f"meta protocol {family}"]
    number = protocol_number(rule.protocol, version)
    if number is not None:
        words += [f"meta l4proto {number}", *_port_words(rule, number)]
    side = "saddr" if rule.direction == "ingress" else "daddr"
    if rule.remote_ip_prefix:
        networks = collapse([rule.remote_ip_prefix], version)
        if not networks:
            return None  # a prefix of the other IP version
        if networks[0].prefixlen:
            words.append(f"{family} {side} {networks[0]}")
        return Match(" ".join(words))
    if rule.remote_group_id or rule.remote_addresses:
        remote = remote_set(rule.remote_addresses, version)
        if remote is None:
            return None
        return Match(" ".join([*words, f"{family} {side} @{remote.name}"]), (remote,))
    return Match(" ".join(words))


def protocol_number(protocol: str | None, version: int) -> int | None:
    """The IP protocol number (None: any); ICMP under IPv6 means ICMPv6, as in Neutron."""
    if protocol is None or protocol in ANY:
        return None
    number = int(protocol) if protocol.isdigit() else PROTOCOLS.get(protocol.lower())
    if number is None or not 0 <= number <= 255:
        raise L2Error(detail=f"security rule protocol {protocol!r} is not known")
    return ICMPV6 if number == ICMP and version == 6 else number


def _port_words(rule: SecurityRule, number: int) -> list[str]:
    low, high = rule.port_range_min, rule.port_range_max
    if low is None:
        return []
    if number in WITH_PORTS:
        span = str(low) if high in (None, low) else f"{low}-{high}"
        return [f"th dport {span}"]
    if number in (ICMP, ICMPV6):
        name = "icmp" if number == ICMP else "icmpv6"
        code = [] if high is None else [f"{name} code {high}"]
        return [f"{name} type {low}", *code]
    return []


def remote_set(addresses: Iterable[str], version: int) -> NftSet | None:
    """The named set of a remote group's addresses of one version; None if it has none."""
    networks = collapse(addresses, version)
    if not networks:
        return None
    elements = tuple(element(n) for n in networks)
    digest = hashlib.sha256(" ".join(elements).encode()).hexdigest()[:12]
    return NftSet(f"remote{version}-{digest}", f"ipv{version}_addr", elements)
