"""Security group rules as nft matches (pure)."""

from __future__ import annotations

import pytest

from saphira.network.l2.errors import L2Error
from saphira.network.l2.nft_rules import match_for, remote_set
from saphira.objects.network import SecurityRule


def text(rule: SecurityRule) -> str:
    found = match_for(rule)
    assert found is not None
    return found.text


def test_protocols_ports_and_directions() -> None:
    assert text(SecurityRule("ingress", "IPv4")) == "meta protocol ip"
    assert text(SecurityRule("egress", "IPv6", "any")) == "meta protocol ip6"
    assert text(SecurityRule("ingress", "IPv4", "tcp", 22, 22)) == (
        "meta protocol ip meta l4proto 6 th dport 22"
    )
    assert text(SecurityRule("egress", "IPv4", "UDP", 1000, 2000)) == (
        "meta protocol ip meta l4proto 17 th dport 1000-2000"
    )
    assert text(SecurityRule("ingress", "IPv4", "132", 9)) == (
        "meta protocol ip meta l4proto 132 th dport 9"
    )
    assert text(SecurityRule("ingress", "IPv4", "gre")) == "meta protocol ip meta l4proto 47"
    assert text(SecurityRule("ingress", "IPv4", "0")) == "meta protocol ip"


def test_icmp_type_and_code_and_icmp_under_ipv6() -> None:
    assert text(SecurityRule("ingress", "IPv4", "icmp", 8, 0)) == (
        "meta protocol ip meta l4proto 1 icmp type 8 icmp code 0"
    )
    assert text(SecurityRule("ingress", "IPv4", "icmp")) == "meta protocol ip meta l4proto 1"
    assert text(SecurityRule("ingress", "IPv6", "icmp", 128)) == (
        "meta protocol ip6 meta l4proto 58 icmpv6 type 128"
    )
    assert text(SecurityRule("ingress", "IPv6", "ipv6-icmp")) == "meta protocol ip6 meta l4proto 58"


def test_remote_prefix_is_the_source_in_and_the_destination_out() -> None:
    assert text(SecurityRule("ingress", "IPv4", remote_ip_prefix="10.1.2.3/16")) == (
        "meta protocol ip ip saddr 10.1.0.0/16"
    )
    assert text(SecurityRule("egress", "IPv6", remote_ip_prefix="2001:db8::/32")) == (
        "meta protocol ip6 ip6 daddr 2001:db8::/32"
    )
    assert text(SecurityRule("ingress", "IPv4", remote_ip_prefix="0.0.0.0/0")) == (
        "meta protocol ip"
    )
    assert match_for(SecurityRule("ingress", "IPv6", remote_ip_prefix="10.0.0.0/8")) is None


def test_remote_groups_become_sets_named_by_their_content() -> None:
    rule = SecurityRule(
        "ingress", "IPv4", "tcp", 80, 80, remote_group_id="g",
        remote_addresses=["10.0.0.7", "10.0.0.0/24", "10.0.1.1", "2001:db8::1"],
    )  # fmt: skip
    found = match_for(rule)
    assert found is not None
    (members,) = found.sets
    assert members.elements == ("10.0.0.0/24", "10.0.1.1")  # merged: no overlapping intervals
    assert found.text.endswith(f"ip saddr @{members.name}")
    same = remote_set(["10.0.1.1", "10.0.0.0/24"], 4)
    assert same == members
    assert remote_set(["10.0.1.2", "10.0.0.0/24"], 4) != members


def test_a_group_without_members_of_the_version_matches_nothing() -> None:
    assert match_for(SecurityRule("ingress", "IPv4", remote_group_id="empty")) is None
    only_v6 = SecurityRule("ingress", "IPv4", remote_group_id="g", remote_addresses=["fd00::1"])
    assert match_for(only_v6) is None


@pytest.mark.parametrize(
    ("protocol", "ethertype"), [("nosuch", "IPv4"), ("300", "IPv4"), ("tcp", "IPv5")]
)
def test_what_cannot_be_filtered_is_refused(protocol: str, ethertype: str) -> None:
    with pytest.raises(L2Error):
        match_for(SecurityRule("ingress", ethertype, protocol))
