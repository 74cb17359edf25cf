"""Wiring on a userspace OVS bridge: VLAN tags, the uplink trunk, admin state, new ports."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from saphira.network.l2.ovs_bridge import ensure_bridge
from saphira.network.l2.ovs_reconcile import OvsReconciler
from saphira.network.ovs_daemons import ensure_running
from saphira.objects.network import SecurityRule
from saphira.privsep import ovs
from saphira.privsep.runner import run

from .ovs_lab import Guest, Lab, lab

# One worker: every userspace bridge shares one connection tracker, and these tests
# reuse addresses.
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("ovs")]

A_IP, B_IP = "10.79.2.11", "10.79.2.12"
ICMP_IN = SecurityRule("ingress", "IPv4", "icmp")


@pytest.fixture
def bench() -> Iterator[tuple[Lab, OvsReconciler, Guest, Guest]]:
    ensure_running()
    with lab() as made:
        agent = OvsReconciler({"physnet1": made.bridge})
        yield made, agent, made.guest("a", A_IP), made.guest("b", B_IP)


def tag(guest: Guest) -> str:
    return run(["ovs-vsctl", "get", "Port", guest.device, "tag"]).strip()


def test_vlan_ports_are_tagged_and_apart(bench: tuple[Lab, OvsReconciler, Guest, Guest]) -> None:
    made, agent, a, b = bench
    c = made.guest("c", "10.79.2.13")
    ports = [a.details(vlan=100), b.details(vlan=100, rules=[ICMP_IN]), c.details()]
    agent.reconcile_once(ports)
    assert [tag(guest) for guest in (a, b, c)] == ["100", "100", "[]"]
    assert a.ping_ok(B_IP)
    assert not c.ping_ok(B_IP)  # untagged: another network


def test_the_uplink_trunk_carries_flat_and_vlan(
    bench: tuple[Lab, OvsReconciler, Guest, Guest],
) -> None:
    made, agent, a, b = bench
    c = made.guest("c", "10.79.3.12")  # on the VLAN network, with a subnet of its own
    flat_host = made.outside("u", "10.79.2.1")
    vlan_host = made.outside("v", "10.79.3.1", vlan=100)
    wrong_vlan = made.outside("w", "10.79.3.2")  # C's subnet, but untagged
    report = agent.reconcile_once([a.details(rules=[ICMP_IN]), b.details(), c.details(vlan=100)])
    assert (len(report.up), report.isolated) == (3, [])
    assert flat_host.ping_ok(A_IP)  # untagged on the trunk: the flat network
    assert not vlan_host.ping_ok(c.ip)  # C admits nothing new from outside either
    c_open = c.details(vlan=100, rules=[ICMP_IN])
    agent.reconcile_once([a.details(rules=[ICMP_IN]), b.details(), c_open])
    assert vlan_host.ping_ok(c.ip)  # tagged 100 on the trunk, untagged at the guest
    assert c.ping_ok(vlan_host.ip)  # and back out, tagged by OVS
    assert not wrong_vlan.ping_ok(c.ip)


def test_an_admin_down_port_forwards_nothing(
    bench: tuple[Lab, OvsReconciler, Guest, Guest],
) -> None:
    _, agent, a, b = bench
    agent.reconcile_once([a.details(), b.details(rules=[ICMP_IN])])
    assert a.ping_ok(B_IP)
    report = agent.reconcile_once([a.details(admin_state_up=False), b.details(rules=[ICMP_IN])])
    assert report.up == [b.port_id]
    assert tag(a) == "4095"
    assert not a.ping_ok(B_IP)


def test_a_port_plugged_since_the_last_run_forwards_nothing(
    bench: tuple[Lab, OvsReconciler, Guest, Guest],
) -> None:
    made, agent, a, b = bench
    c = made.guest("c", "10.79.2.13", plugged=False)
    agent.reconcile_once([a.details(rules=[ICMP_IN]), b.details(), c.details()])
    made.plug(c)  # as libvirt plugs a new guest's tap, before the agent has seen it
    assert not c.ping_ok(A_IP)
    assert agent.reconcile_once([a.details(rules=[ICMP_IN]), b.details(), c.details()]).up == [
        a.port_id,
        b.port_id,
        c.port_id,
    ]
    assert c.ping_ok(A_IP)


def test_ensure_bridge_says_which_datapath_and_why(
    bench: tuple[Lab, OvsReconciler, Guest, Guest],
) -> None:
    made, _, _, _ = bench
    kernel = ovs.kernel_datapath_error() is None
    assert made.info.datapath_type == ("system" if kernel else "netdev")
    assert ("answers" if kernel else "no kernel datapath") in made.info.reason
    assert ensure_bridge(made.bridge, made.info.datapath_type).reason == "configured"
    assert ovs.bridge(made.bridge) == {
        "datapath_type": made.info.datapath_type,
        "fail_mode": "secure",
    }
