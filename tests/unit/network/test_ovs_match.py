"""Security rules as OpenFlow matches."""

from __future__ import annotations

import random

import pytest

from saphira.network.l2.errors import L2Error
from saphira.network.l2.ovs_match import link_local, port_masks, protocol_number, rule_matches
from saphira.objects.network import SecurityRule


def covered(pieces: list[str]) -> set[int]:
    ports: set[int] = set()
    for piece in pieces:
        value, _, mask = piece.partition("/")
        base, bits = int(value, 0), int(mask, 0) if mask else 0xFFFF
        ports |= {port for port in range(base, base + (~bits & 0xFFFF) + 1) if port & bits == base}
    return ports


def test_a_single_port_is_exact_and_a_range_is_masked() -> None:
    assert port_masks(22, 22) == ["22"]
    assert port_masks(8000, 8100) == ["0x1f40/0xffc0", "0x1f80/0xffe0", "0x1fa0/0xfffc", "8100"]
    assert port_masks(0, 65535) == ["0x0000/0x0000"]


@pytest.mark.parametrize("seed", range(20))
def test_masks_cover_exactly_the_range(seed: int) -> None:
    rng = random.Random(seed)
    low = rng.randrange(0, 65536)
    high = rng.randrange(low, min(low + 5000, 65535) + 1)
    pieces = port_masks(low, high)
    assert covered(pieces) == set(range(low, high + 1))
    assert len(pieces) <= 30


def test_bad_ranges_and_protocols_are_refused() -> None:
    with pytest.raises(L2Error):
        port_masks(90, 80)
    with pytest.raises(L2Error):
        protocol_number("bogus", 4)
    with pytest.raises(L2Error):
        protocol_number("300", 4)


def test_protocol_names_numbers_and_icmp_per_version() -> None:
    assert [protocol_number(p, 4) for p in (None, "any", "tcp", "UDP", "47", "icmp")] == [
        None,
        None,
        6,
        17,
        47,
        1,
    ]
    assert [protocol_number(p, 6) for p in ("icmp", "ipv6-icmp", "icmpv6", "58")] == [58] * 4


def test_link_local_is_the_eui64_address() -> None:
    assert link_local("fa:16:3e:00:00:01") == "fe80::f816:3eff:fe00:1"
    assert link_local("00:00:00:00:00:00") == "fe80::200:ff:fe00:0"


def test_ingress_matches_the_source_egress_the_destination() -> None:
    rule = SecurityRule("ingress", "IPv4", "tcp", 22, 22, remote_ip_prefix="10.0.0.0/8")
    assert rule_matches(rule) == ["tcp,nw_src=10.0.0.0/8,tp_dst=22"]
    rule = SecurityRule("egress", "IPv6", "udp", 53, 53, remote_ip_prefix="2001:db8::1/128")
    assert rule_matches(rule) == ["udp6,ipv6_dst=2001:db8::1,tp_dst=53"]


def test_any_protocol_any_remote() -> None:
    assert rule_matches(SecurityRule("egress")) == ["ip"]
    assert rule_matches(SecurityRule("egress", "IPv6")) == ["ipv6"]
    assert rule_matches(SecurityRule("ingress", remote_ip_prefix="0.0.0.0/0")) == ["ip"]
    assert rule_matches(SecurityRule("ingress", protocol="112")) == ["ip,nw_proto=112"]


def test_icmp_type_and_code() -> None:
    assert rule_matches(SecurityRule("ingress", "IPv4", "icmp", 8, 0)) == [
        "icmp,icmp_type=8,icmp_code=0"
    ]
    assert rule_matches(SecurityRule("ingress", "IPv6", "icmp", 128)) == ["icmp6,icmp_type=128"]
    assert rule_matches(SecurityRule("ingress", "IPv4", "icmp")) == ["icmp"]


def test_remote_group_members_of_the_rule_family_only() -> None:
    rule = SecurityRule(
        "ingress",
        "IPv4",
        "tcp",
        80,
        80,
        remote_group_id="g",
        remote_addresses=["10.0.0.5", "2001:db8::5", "10.0.0.5/32", "10.0.1.0/24"],
    )
    assert rule_matches(rule) == [
        "tcp,nw_src=10.0.0.5,tp_dst=80",
        "tcp,nw_src=10.0.1.0/24,tp_dst=80",
    ]


def test_a_rule_that_can_match_no_one_has_no_matches() -> None:
    assert rule_matches(SecurityRule("ingress", remote_group_id="empty")) == []
    assert rule_matches(SecurityRule("ingress", "IPv6", remote_ip_prefix="10.0.0.0/8")) == []
