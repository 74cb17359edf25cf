"""Security rules and addresses as OpenFlow match fields (pure; used by ``ovs_flows``).

OpenFlow matches a port with a value and a bit mask, not a range, so a port
range becomes the few masked values that cover it exactly (as Neutron's
``port_rule_masking``). A rule's remote addresses multiply its flows: one
per address (prefix), because a flow matches one.
"""

from __future__ import annotations

import ipaddress

from saphira.network.l2.errors import L2Error
from saphira.objects.network import SecurityRule

# Neutron's protocol names (and IANA numbers) for rules.
PROTOCOLS = {
    "ah": 51, "dccp": 33, "egp": 8, "esp": 50, "gre": 47, "icmp": 1, "icmpv6": 58, "igmp": 2,
    "ipip": 4, "ipv6-encap": 41, "ipv6-frag": 44, "ipv6-icmp": 58, "ipv6-nonxt": 59,
    "ipv6-opts": 60, "ipv6-route": 43, "ospf": 89, "pgm": 113, "rsvp": 46, "sctp": 132,
    "tcp": 6, "udp": 17, "udplite": 136, "vrrp": 112,
}  # fmt: skip
SHORTHAND = {
    (4, 1): "icmp", (4, 6): "tcp", (4, 17): "udp", (4, 132): "sctp",
    (6, 58): "icmp6", (6, 6): "tcp6", (6, 17): "udp6", (6, 132): "sctp6",
}  # fmt: skip
WITH_PORTS = (6, 17, 132)
ICMP = (1, 58)
PORT_BITS = 0xFFFF


def version_of(ethertype: str) -> int:
    return 6 if ethertype == "IPv6" else 4


def protocol_number(protocol: str | None, version: int) -> int | None:
    """The IP protocol a rule names; None for any. ``icmp`` means ICMPv6 in an IPv6 rule."""
    if protocol is None or protocol.lower() in ("", "any"):
        return None
    name = protocol.lower()
    number = int(name) if name.isdigit() else PROTOCOLS.get(name)
    if number is None or not 0 <= number <= 255:
        raise L2Error(detail=f"unknown protocol {protocol!r} in a security rule")
    return 58 if (version, number) == (6, 1) else number


def port_masks(low: int, high: int) -> list[str]:
    """``tp_*`` values covering exactly [low, high]: ``80``, or ``0x1f90/0xfff0`` pieces."""
    if not 0 <= low <= high <= PORT_BITS:
        raise L2Error(detail=f"bad port range {low}-{high} in a security rule")
    pieces: list[str] = []
    while low <= high:
        size = low & -low or PORT_BITS + 1  # the largest aligned block starting at low...
        while size > high - low + 1:  # ...that still fits
            size >>= 1
        mask = PORT_BITS & ~(size - 1)
        pieces.append(str(low) if size == 1 else f"0x{low:04x}/0x{mask:04x}")
        low += size
    return pieces


def address(network: ipaddress.IPv4Network | ipaddress.IPv6Network) -> str:
    """A host prefix as a bare address (as ovs-ofctl prints it), a network with its length."""
    full = network.prefixlen == network.max_prefixlen
    return str(network.network_address) if full else network.with_prefixlen


def family(value: str, version: int) -> str | None:
    """``value`` (address or CIDR) normalised if it is of IP ``version``, else None."""
    network = ipaddress.ip_network(value, strict=False)
    return address(network) if network.version == version else None


def link_local(mac: str) -> str:
    """The EUI-64 link-local address a guest derives from ``mac`` (fe80::f816:3eff:fe..)."""
    octets = [int(part, 16) for part in mac.split(":")]
    octets[0] ^= 0x02
    eui = bytes([*octets[:3], 0xFF, 0xFE, *octets[3:]])
    return str(ipaddress.IPv6Address(b"\xfe\x80" + bytes(6) + eui))


def _remotes(rule: SecurityRule, version: int) -> list[str | None]:
    """The remote side: [None] for anyone, [] for no one (an empty remote group)."""
    if rule.remote_ip_prefix:
        network = ipaddress.ip_network(rule.remote_ip_prefix, strict=False)
        if network.version != version:
            return []
        return [None] if network.prefixlen == 0 else [address(network)]
    if rule.remote_group_id is not None or rule.remote_addresses:
        found = (family(value, version) for value in rule.remote_addresses)
        return list(dict.fromkeys(value for value in found if value is not None))
    return [None]


def _l4(rule: SecurityRule, protocol: int | None) -> list[str]:
    low, high = rule.port_range_min, rule.port_range_max
    if protocol in WITH_PORTS and low is not None:
        return [f"tp_dst={piece}" for piece in port_masks(low, high if high is not None else low)]
    if protocol in ICMP and low is not None:
        return [f"icmp_type={low}" + (f",icmp_code={high}" if high is not None else "")]
    return [""]


def rule_matches(rule: SecurityRule) -> list[str]:
    """The match fields (without port or conntrack fields) of a rule's flows.

    The remote is the source of ingress traffic and the destination of egress
    traffic. An empty list means the rule admits nothing (a remote group
    without members, or a remote prefix of the other IP version).
    """
    version = version_of(rule.ethertype)
    protocol = protocol_number(rule.protocol, version)
    ip = "ip" if version == 4 else "ipv6"
    base = (
        ip if protocol is None else SHORTHAND.get((version, protocol), f"{ip},nw_proto={protocol}")
    )
    side = ("nw_" if version == 4 else "ipv6_") + ("src" if rule.direction == "ingress" else "dst")
    matches: list[str] = []
    for remote in _remotes(rule, version):
        for l4 in _l4(rule, protocol):
            parts = (base, f"{side}={remote}" if remote else "", l4)
            matches.append(",".join(part for part in parts if part))
    return matches
