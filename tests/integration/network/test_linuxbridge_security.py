"""Security groups on a Linux bridge (nftables), proven with traffic between namespaces."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from saphira.objects.network import AddressPair, SecurityRule
from saphira.privsep import links
from saphira.privsep.runner import run

from .lb_lab import Guest, Lab, lab, tcp_ok

pytestmark = pytest.mark.integration

TCP_8080 = SecurityRule("ingress", "IPv4", "tcp", 8080, 8080)
ICMP_IN = SecurityRule("ingress", "IPv4", "icmp")
UDP_IN = SecurityRule("ingress", "IPv4", "udp", 5353, 5353)
ICMP6_IN = SecurityRule("ingress", "IPv6", "icmp")


@pytest.fixture
def bench() -> Iterator[tuple[Lab, Guest, Guest]]:
    with lab() as made:
        yield made, made.guest("a"), made.guest("b")


def test_tcp_needs_an_ingress_rule(bench: tuple[Lab, Guest, Guest]) -> None:
    made, a, b = bench
    b.serve_tcp(8080)
    made.agent.reconcile_once([a.details(), b.details()])
    assert not a.tcp_ok(b.ip, 8080)
    made.agent.reconcile_once([a.details(), b.details(rules=[TCP_8080])])
    assert a.tcp_ok(b.ip, 8080)
    made.agent.reconcile_once([a.details(), b.details()])
    assert not a.tcp_ok(b.ip, 8080)


def test_icmp_needs_an_ingress_rule(bench: tuple[Lab, Guest, Guest]) -> None:
    made, a, b = bench
    made.agent.reconcile_once([a.details(), b.details()])
    assert not a.ping_ok(b.ip)
    made.agent.reconcile_once([a.details(), b.details(rules=[ICMP_IN])])
    assert a.ping_ok(b.ip)
    assert not b.ping_ok(a.ip)  # the rule is B's: A still admits nothing new
    made.agent.reconcile_once([a.details(), b.details()])
    assert not a.ping_ok(b.ip)


def test_ipv6_finds_its_neighbours_and_icmpv6_needs_a_rule(
    bench: tuple[Lab, Guest, Guest],
) -> None:
    made, a, b = bench
    made.agent.reconcile_once([a.details(), b.details()])
    assert not a.ping_ok(b.ip6)
    made.agent.reconcile_once([a.details(), b.details(rules=[ICMP6_IN])])
    assert a.ping_ok(b.ip6)
    assert not a.ping_ok(b.ip)  # the IPv4 one is still closed
    assert not b.ping_ok(a.ip6)


def test_dhcp_reaches_a_port_without_rules_but_no_port_serves_it(
    bench: tuple[Lab, Guest, Guest],
) -> None:
    made, a, b = bench
    server = made.guest("s", device=f"sxlb{made.suffix}s")  # the DHCP agent's side: unfiltered
    server.serve_dhcp(made.ip(100), made.ip(150))
    made.agent.reconcile_once([a.details(security_rules=[]), b.details()])
    assert a.dhcp_ok()
    server.stop()
    b.serve_dhcp(made.ip(100), made.ip(150))
    dhcp_in = SecurityRule("ingress", "IPv4", "udp", 67, 67)  # B hears the requests...
    made.agent.reconcile_once([a.details(security_rules=[]), b.details(rules=[dhcp_in])])
    assert not a.dhcp_ok()  # ...but its answers stay behind its port


def test_a_rule_admits_only_its_remote(bench: tuple[Lab, Guest, Guest]) -> None:
    made, a, b = bench
    c = made.guest("c")
    b.serve_tcp(8080)
    group = SecurityRule(
        "ingress", "IPv4", "tcp", 8000, 8100, remote_addresses=[a.ip], remote_group_id="sxgroup"
    )
    made.agent.reconcile_once([a.details(), b.details(rules=[group]), c.details()])
    assert a.tcp_ok(b.ip, 8080)
    assert not c.tcp_ok(b.ip, 8080)
    prefix = SecurityRule("ingress", "IPv4", "tcp", 8080, 8080, remote_ip_prefix=f"{c.ip}/32")
    made.agent.reconcile_once([a.details(), b.details(rules=[prefix]), c.details()])
    assert c.tcp_ok(b.ip, 8080)
    assert not a.tcp_ok(b.ip, 8080)


def test_egress_is_only_what_the_rules_open(bench: tuple[Lab, Guest, Guest]) -> None:
    made, a, b = bench
    b.serve_tcp(8080)
    made.agent.reconcile_once([a.details(), b.details(rules=[TCP_8080])])
    assert a.tcp_ok(b.ip, 8080)
    only_ssh = [SecurityRule("egress", "IPv4", "tcp", 22, 22)]
    made.agent.reconcile_once([a.details(security_rules=only_ssh), b.details(rules=[TCP_8080])])
    assert not a.tcp_ok(b.ip, 8080)


def test_spoofed_addresses_do_not_reach_the_other_port(bench: tuple[Lab, Guest, Guest]) -> None:
    made, a, b = bench
    seen = made.sink_udp(b, 5353)
    spoofed = made.ip(99)
    a.add_address(spoofed)
    a.know(b.ip, b.mac)  # no ARP: the datagram itself meets the checks
    made.agent.reconcile_once([a.details(), b.details(rules=[UDP_IN])])
    a.send_udp(b.ip, 5353, "honest", source=a.ip)
    a.send_udp(b.ip, 5353, "spoofed-ip", source=spoofed)
    a.set_mac("fa:16:3e:00:00:99")
    a.send_udp(b.ip, 5353, "spoofed-mac", source=a.ip)
    a.set_mac(a.mac)
    paired = a.details(allowed_address_pairs=[AddressPair(spoofed, a.mac)])
    made.agent.reconcile_once([paired, b.details(rules=[UDP_IN])])
    a.send_udp(b.ip, 5353, "paired", source=spoofed)
    assert _received(seen, 2) == [f"{a.ip} honest", f"{spoofed} paired"]


def test_arp_from_a_foreign_address_does_not_reach_the_other_port(
    bench: tuple[Lab, Guest, Guest],
) -> None:
    made, a, b = bench
    spoofed = made.ip(99)
    a.add_address(spoofed)
    made.agent.reconcile_once([a.details(), b.details()])
    a.arping(b.ip, source=a.ip)
    a.arping(b.ip, source=spoofed)
    assert b.neighbours() == {a.ip: a.mac}  # B learnt only the honest sender


def test_port_security_off_and_admin_down(bench: tuple[Lab, Guest, Guest]) -> None:
    made, a, b = bench
    b.serve_tcp(8080)
    made.agent.reconcile_once([a.details(), b.details(port_security_enabled=False)])
    assert a.tcp_ok(b.ip, 8080)
    assert b.ping_ok(a.ip) is False  # A is still filtered: no ingress rule
    made.agent.reconcile_once(
        [a.details(), b.details(port_security_enabled=False, admin_state_up=False)]
    )
    assert not a.tcp_ok(b.ip, 8080)


def test_the_host_reaches_a_port_through_the_bridge_address(
    bench: tuple[Lab, Guest, Guest],
) -> None:
    """The bridge's own address goes through the bridge's input and output hooks."""
    made, a, b = bench
    assert run(["ip", "route", "show", f"{made.ip(0)}/24"]).strip() == ""  # nothing of the host's
    links.add_address(made.bridge, f"{made.ip(254)}/24")
    b.serve_tcp(8080)
    made.agent.reconcile_once([a.details(), b.details()])
    assert not tcp_ok(b.ip, 8080)
    made.agent.reconcile_once([a.details(), b.details(rules=[TCP_8080])])
    assert tcp_ok(b.ip, 8080)


def _received(seen: Path, count: int) -> list[str]:
    deadline = time.monotonic() + 3
    while len(seen.read_text().splitlines()) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.3)  # anything late would show up now
    return seen.read_text().splitlines()
