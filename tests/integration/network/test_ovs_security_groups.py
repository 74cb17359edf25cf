"""Security groups on a userspace OVS bridge, proven with traffic between two namespaces."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from saphira.network.l2.ovs_reconcile import OvsReconciler
from saphira.network.ovs_daemons import ensure_running
from saphira.objects.network import AddressPair, FixedIP, PortDetails, SecurityRule
from saphira.privsep import links

from .ovs_lab import DEVICE, Guest, Lab, lab

# One worker: every userspace bridge shares one connection tracker, and these tests
# reuse addresses.
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("ovs")]

A_IP, B_IP = "10.79.0.11", "10.79.0.12"
TCP_8080 = SecurityRule("ingress", "IPv4", "tcp", 8080, 8080)
ICMP_IN = SecurityRule("ingress", "IPv4", "icmp")
ICMPV6_IN = SecurityRule("ingress", "IPv6", "icmp")


@pytest.fixture
def bench() -> Iterator[tuple[Lab, OvsReconciler, Guest, Guest]]:
    ensure_running()
    with lab() as made:
        agent = OvsReconciler({"physnet1": made.bridge})
        yield made, agent, made.guest("a", A_IP), made.guest("b", B_IP)


def test_tcp_needs_an_ingress_rule(bench: tuple[Lab, OvsReconciler, Guest, Guest]) -> None:
    _, agent, a, b = bench
    b.serve_tcp(8080)
    agent.reconcile_once([a.details(), b.details()])
    assert not a.tcp_ok(B_IP, 8080)
    agent.reconcile_once([a.details(), b.details(rules=[TCP_8080])])
    assert a.tcp_ok(B_IP, 8080)
    agent.reconcile_once([a.details(), b.details()])
    assert not a.tcp_ok(B_IP, 8080)


def test_icmp_needs_an_ingress_rule(bench: tuple[Lab, OvsReconciler, Guest, Guest]) -> None:
    _, agent, a, b = bench
    agent.reconcile_once([a.details(), b.details()])
    assert not a.ping_ok(B_IP)
    agent.reconcile_once([a.details(), b.details(rules=[ICMP_IN])])
    assert a.ping_ok(B_IP)
    assert not b.ping_ok(A_IP)  # the rule is B's: A still admits nothing new
    agent.reconcile_once([a.details(), b.details()])
    assert not a.ping_ok(B_IP)


def test_icmpv6_needs_a_rule_and_neighbour_discovery_passes(
    bench: tuple[Lab, OvsReconciler, Guest, Guest],
) -> None:
    _, agent, a, b = bench
    a6, b6 = "fd00:79::11", "fd00:79::12"
    links.add_address(DEVICE, f"{a6}/64", namespace=a.namespace)
    links.add_address(DEVICE, f"{b6}/64", namespace=b.namespace)

    def details(guest: Guest, address: str, rules: list[SecurityRule]) -> PortDetails:
        port = guest.details(rules=rules)
        port.fixed_ips.append(FixedIP("sxsubnet6", address))
        return port

    agent.reconcile_once([details(a, a6, []), details(b, b6, [])])
    assert not a.ping_ok(b6)
    agent.reconcile_once([details(a, a6, []), details(b, b6, [ICMPV6_IN])])
    assert a.ping_ok(b6)  # solicitations and advertisements pass both ways
    assert not b.ping_ok(a6)


def test_a_rule_admits_only_its_remote(bench: tuple[Lab, OvsReconciler, Guest, Guest]) -> None:
    _, agent, a, b = bench
    b.serve_tcp(8080)
    others = SecurityRule("ingress", "IPv4", "tcp", 8080, 8080, remote_ip_prefix="10.79.0.128/25")
    agent.reconcile_once([a.details(), b.details(rules=[others])])
    assert not a.tcp_ok(B_IP, 8080)
    group = SecurityRule(
        "ingress", "IPv4", "tcp", 8000, 8100, remote_addresses=[A_IP], remote_group_id="sxgroup"
    )
    agent.reconcile_once([a.details(), b.details(rules=[group])])
    assert a.tcp_ok(B_IP, 8080)


@pytest.mark.parametrize("spoof", ["ip", "mac"])
def test_spoofed_ip_or_mac_does_not_reach(
    bench: tuple[Lab, OvsReconciler, Guest, Guest], spoof: str
) -> None:
    _, agent, a, b = bench
    agent.reconcile_once([a.details(), b.details(rules=[ICMP_IN])])
    a.know(b)
    assert a.ping_ok(B_IP)
    if spoof == "ip":
        a.set_ip("10.79.0.50")
    else:
        a.set_mac("fa:16:3e:66:66:66")
    b.know(a)  # B answers the impostor without asking who it is
    assert not a.ping_ok(B_IP)
    # The same packets pass once A is not filtered: it was the flows that stopped them.
    agent.reconcile_once([a.details(port_security_enabled=False), b.details(rules=[ICMP_IN])])
    assert a.ping_ok(B_IP)


def test_an_allowed_address_pair_may_send(bench: tuple[Lab, OvsReconciler, Guest, Guest]) -> None:
    _, agent, a, b = bench
    a.set_ip("10.79.0.60")
    agent.reconcile_once([a.details(), b.details(rules=[ICMP_IN])])
    assert not a.ping_ok(B_IP)
    pair = [AddressPair("10.79.0.60", a.mac)]
    agent.reconcile_once([a.details(allowed_address_pairs=pair), b.details(rules=[ICMP_IN])])
    assert a.ping_ok(B_IP)


def test_without_port_security_nothing_is_filtered(
    bench: tuple[Lab, OvsReconciler, Guest, Guest],
) -> None:
    _, agent, a, b = bench
    b.serve_tcp(8080)
    agent.reconcile_once([a.details(), b.details(port_security_enabled=False)])
    assert a.tcp_ok(B_IP, 8080)
    assert a.ping_ok(B_IP)
    assert b.ping_ok(A_IP) is False  # A is still filtered
