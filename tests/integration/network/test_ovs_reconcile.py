"""reconcile_once on a real bridge: idempotent, per-port replacement, removal."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from saphira.network.l2.ovs_bridge import find_port
from saphira.network.l2.ovs_flows import flows_for
from saphira.network.l2.ovs_pipeline import foreign_cookie, port_cookie
from saphira.network.l2.ovs_reconcile import OvsReconciler
from saphira.network.ovs_daemons import ensure_running
from saphira.objects.network import SecurityRule
from saphira.privsep import ovs
from saphira.privsep.runner import run

from .ovs_lab import Guest, Lab, lab

# One worker: every userspace bridge shares one connection tracker, and these tests
# reuse addresses.
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("ovs")]

A_IP, B_IP = "10.79.1.11", "10.79.1.12"
ICMP_IN = SecurityRule("ingress", "IPv4", "icmp")


@pytest.fixture
def bench() -> Iterator[tuple[Lab, Guest, Guest]]:
    ensure_running()
    with lab() as made:
        yield made, made.guest("a", A_IP), made.guest("b", B_IP)


def packets(bridge: str, guest: Guest) -> int:
    """Packets counted by the guest's classify flow (a replaced flow starts again at 0)."""
    match = f"cookie={port_cookie(guest.port_id):#x}/-1,table=0"
    out = run(["ovs-ofctl", "-O", "OpenFlow14", "dump-flows", bridge, match])
    return sum(int(n) for n in re.findall(r"n_packets=(\d+)", out))


def cookie_flows(bridge: str, guest: Guest) -> list[str]:
    return ovs.dump_flows(bridge, f"cookie={port_cookie(guest.port_id):#x}/-1")


def test_a_second_run_and_a_restart_change_nothing(bench: tuple[Lab, Guest, Guest]) -> None:
    made, a, b = bench
    desired = [a.details(), b.details(rules=[ICMP_IN])]
    first = OvsReconciler({"physnet1": made.bridge}).reconcile_once(desired)
    assert sorted(first.changed) == sorted(first.up) == sorted([a.port_id, b.port_id])
    assert a.ping_ok(B_IP)
    counted, flows = packets(made.bridge, a), ovs.dump_flows(made.bridge)
    assert counted > 0
    for agent in (OvsReconciler({"physnet1": made.bridge}),) * 2:  # a restarted agent, twice
        again = agent.reconcile_once(desired)
        assert (again.applied, again.changed, again.removed) == ([], [], [])
        assert sorted(again.unchanged) == sorted([a.port_id, b.port_id])
    assert ovs.dump_flows(made.bridge) == flows
    assert packets(made.bridge, a) >= counted  # not replaced: counters kept
    assert len(cookie_flows(made.bridge, a)) == len(flows_for(desired[0], _ofport(made, a)))


def test_a_changed_port_is_replaced_alone(bench: tuple[Lab, Guest, Guest]) -> None:
    made, a, b = bench
    agent = OvsReconciler({"physnet1": made.bridge})
    agent.reconcile_once([a.details(), b.details()])
    assert not a.ping_ok(B_IP)
    counted = packets(made.bridge, a)
    report = agent.reconcile_once([a.details(), b.details(rules=[ICMP_IN])])
    assert (report.changed, report.unchanged) == ([b.port_id], [a.port_id])
    assert report.applied, "nothing applied for the changed port"
    assert {cookie_of_line(line) for line in report.applied} == {port_cookie(b.port_id)}
    assert packets(made.bridge, a) >= counted > 0
    assert a.ping_ok(B_IP)


def test_ports_gone_lose_their_flows(bench: tuple[Lab, Guest, Guest]) -> None:
    made, a, b = bench
    agent = OvsReconciler({"physnet1": made.bridge})
    agent.reconcile_once([a.details(), b.details(rules=[ICMP_IN])])
    # Still plugged but no longer bound here: its flows go, the tap is isolated
    # (dead VLAN, one drop flow under a cookie of its own).
    report = agent.reconcile_once([a.details()])
    assert (report.isolated, report.removed) == ([b.port_id], [f"{port_cookie(b.port_id):#x}"])
    assert cookie_flows(made.bridge, b) == []
    isolation = ovs.dump_flows(made.bridge, f"cookie={foreign_cookie(b.device):#x}/-1")
    assert [line.split(" actions=")[-1] for line in isolation] == ["drop"]
    assert run(["ovs-vsctl", "get", "Port", b.device, "tag"]).strip() == "4095"
    assert not a.ping_ok(B_IP)
    # Unplugged: nothing of it is left.
    made.unplug(b)
    report = agent.reconcile_once([a.details(), b.details()])
    assert (report.missing, report.removed) == ([b.port_id], [f"{foreign_cookie(b.device):#x}"])
    assert ovs.dump_flows(made.bridge, f"cookie={foreign_cookie(b.device):#x}/-1") == []
    assert agent.reconcile_once([a.details()]).applied == []


def cookie_of_line(line: str) -> int:
    found = re.search(r"cookie=(0x[0-9a-f]+)", line)
    assert found is not None, line
    return int(found.group(1), 16)


def _ofport(made: Lab, guest: Guest) -> int:
    found = find_port(made.bridge, guest.port_id)  # as the agent finds libvirt's taps
    assert found is not None and found.name == guest.device
    return found.ofport
