"""A filtered port's two chains: what may leave it (egress) and what may reach it (ingress).

Chains ``return`` to let a packet through, so the dispatching base chain
goes on to the receiving port's ingress chain after the sender's egress
chain; they end in ``drop``. Egress starts with anti-spoofing (source MAC,
MAC/IP pairs for IP and ARP, from the fixed IPs and the allowed address
pairs, with each MAC's IPv6 link-local address), lets DHCP clients and IPv6
neighbour discovery through and stops DHCP servers and router
advertisements behind a port. Both directions accept established and
related traffic, drop invalid packets, then apply the security rules.
"""

from __future__ import annotations

import ipaddress

from saphira.network.l2.nft_model import CT_ESTABLISHED, CT_INVALID, Chain, NftSet
from saphira.network.l2.nft_rules import collapse, element, match_for
from saphira.objects.network import PortDetails

EGRESS_SERVICES = (
    "meta protocol != { ip, ip6 } drop",
    "meta protocol ip udp sport 67 udp dport 68 drop",  # no DHCP server behind a port
    "meta protocol ip6 udp sport 547 udp dport 546 drop",
    "meta protocol ip6 icmpv6 type nd-router-advert drop",  # nor a router
    "meta protocol ip udp sport 68 udp dport 67 return",  # DHCP clients renewing
    "meta protocol ip6 udp sport 546 udp dport 547 return",
    "meta protocol ip6 icmpv6 type { nd-router-solicit, nd-neighbor-solicit, nd-neighbor-advert,"
    " mld-listener-report, mld2-listener-report } return",
)
INGRESS_SERVICES = (
    "meta protocol arp return",
    "meta protocol ip udp sport 67 udp dport 68 return",  # DHCP offers and acks
    "meta protocol ip6 udp sport 547 udp dport 546 return",
    "meta protocol ip6 icmpv6 type { nd-router-advert, nd-neighbor-solicit, nd-neighbor-advert,"
    " mld-listener-query } return",
)
STATE = (
    f"meta mark & {CT_INVALID:#010x} != 0 drop",
    f"meta mark & {CT_ESTABLISHED:#010x} != 0 return",
)


def port_chains(port: PortDetails, tap: str) -> tuple[Chain, Chain]:
    """``(egress, ingress)``; L2Error for a rule the port cannot be given."""
    rules = [(rule.direction, match_for(rule)) for rule in port.security_rules]
    opened = {
        direction: [m for d, m in rules if d == direction and m is not None]
        for direction in ("egress", "ingress")
    }
    ip4, ip6 = address_sets(port, tap)
    spoofing = anti_spoofing(port, ip4.name, ip6.name)
    allowed = {d: tuple(f"{m.text} return" for m in matches) for d, matches in opened.items()}
    egress = Chain(
        f"{tap}-egress",
        (*spoofing, *EGRESS_SERVICES, *STATE, *allowed["egress"], "drop"),
        sets=(ip4, ip6, *(s for m in opened["egress"] for s in m.sets)),
    )
    ingress = Chain(
        f"{tap}-ingress",
        (*STATE, *INGRESS_SERVICES, *allowed["ingress"], "drop"),
        sets=tuple(s for m in opened["ingress"] for s in m.sets),
    )
    return egress, ingress


def macs_of(port: PortDetails) -> list[str]:
    pairs = [pair.mac_address or port.mac_address for pair in port.allowed_address_pairs]
    return sorted({mac.lower() for mac in (port.mac_address, *pairs)})


def anti_spoofing(port: PortDetails, ip4: str, ip6: str) -> tuple[str, ...]:
    macs = "{ " + ", ".join(macs_of(port)) + " }"
    return (
        f"ether saddr != {macs} drop",
        # ARP probes (address conflict detection) come from 0.0.0.0.
        f"meta protocol arp arp saddr ip 0.0.0.0 arp saddr ether {macs} return",
        f"meta protocol arp arp saddr ether . arp saddr ip @{ip4} return",
        "meta protocol arp drop",
        # A DHCP client has no address yet.
        "meta protocol ip ip saddr 0.0.0.0 ip daddr 255.255.255.255"
        " udp sport 68 udp dport 67 return",
        f"meta protocol ip ether saddr . ip saddr != @{ip4} drop",
        # Duplicate address detection and MLD before the address is usable.
        "meta protocol ip6 ip6 saddr :: icmpv6 type { nd-neighbor-solicit,"
        " mld-listener-report, mld2-listener-report } return",
        f"meta protocol ip6 ether saddr . ip6 saddr != @{ip6} drop",
    )


def address_sets(port: PortDetails, tap: str) -> tuple[NftSet, NftSet]:
    """``MAC . address`` pairs the port may send from, IPv4 and IPv6."""
    by_mac: dict[str, list[str]] = {mac: [] for mac in macs_of(port)}
    by_mac[port.mac_address.lower()] += [ip.ip_address for ip in port.fixed_ips]
    for pair in port.allowed_address_pairs:
        by_mac[(pair.mac_address or port.mac_address).lower()].append(pair.ip_address)
    for mac, addresses in by_mac.items():
        addresses.append(f"{link_local(mac)}/128")
    sets = []
    for version in (4, 6):
        elements = tuple(
            f"{mac} . {element(network)}"
            for mac, addresses in sorted(by_mac.items())
            for network in collapse(addresses, version)
        )
        sets.append(NftSet(f"{tap}-ip{version}", f"ether_addr . ipv{version}_addr", elements))
    return sets[0], sets[1]


def link_local(mac: str) -> str:
    """The modified EUI-64 link-local address a MAC gives itself (RFC 4291)."""
    octets = bytearray(int(part, 16) for part in mac.split(":"))
    octets[0] ^= 0x02
    interface = bytes(octets[:3]) + b"\xff\xfe" + bytes(octets[3:])
    return str(ipaddress.IPv6Address(b"\xfe\x80" + bytes(6) + interface))
