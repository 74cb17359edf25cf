"""The Linux bridge agent's reconcile: plugging, idempotence, clean-up, VLANs, live traffic."""

from __future__ import annotations

import subprocess

import pytest

from saphira.network.l2.linuxbridge_plan import vlan_bridge, vlan_device
from saphira.objects.network import AddressPair, SecurityRule
from saphira.privsep import links, nft

from .lb_lab import lab, vlans_supported

pytestmark = pytest.mark.integration

ICMP_IN = SecurityRule("ingress", "IPv4", "icmp")
EVERY_KIND = [
    SecurityRule("egress", "IPv4"),
    SecurityRule("egress", "IPv6"),
    SecurityRule("ingress", "IPv4", "tcp", 22, 25, remote_addresses=["10.0.0.5", "10.0.0.0/24"]),
    SecurityRule("ingress", "IPv4", "udp", 53, None, remote_ip_prefix="192.0.2.0/24"),
    SecurityRule("ingress", "IPv4", "icmp", 8, 0),
    SecurityRule("ingress", "IPv6", "icmp", 128),
    SecurityRule("ingress", "IPv6", "tcp", 443, 443, remote_addresses=["2001:db8::/64"]),
    SecurityRule("ingress", "IPv4", "112"),
    SecurityRule("ingress", "IPv4", "sctp", 9, 9),
    SecurityRule("ingress", "IPv4", "udp", remote_group_id="sxempty"),
]


def test_the_agent_makes_the_bridge_and_plugs_a_loose_tap() -> None:
    with lab(with_bridge=False) as made:
        a = made.guest("a", plugged=False)
        assert links.show(made.bridge) is None
        report = made.agent.reconcile_once([a.details()])
        tap = links.show(a.tap)
        assert tap is not None and tap.up and master(a.tap) == made.bridge
        assert (report.up, report.changed, report.failed) == ([a.port_id], [a.port_id], {})


def test_reconcile_twice_changes_nothing_and_gone_ports_lose_their_chains() -> None:
    with lab() as made:
        a, b = made.guest("a"), made.guest("b")
        missing = made.guest("c", plugged=False)
        links.delete(missing.tap)  # the port is bound here but its guest is not up yet
        desired = [a.details(), b.details(rules=[ICMP_IN]), missing.details()]
        first = made.agent.reconcile_once(desired)
        assert first.applied and sorted(first.changed) == sorted([a.port_id, b.port_id])
        assert first.missing == [missing.port_id]
        listed = made.tables()
        second = made.agent.reconcile_once(desired)
        assert not second.applied and second.changed == []
        assert sorted(second.unchanged) == sorted([a.port_id, b.port_id])
        assert made.tables() == listed  # same handles: nothing was rewritten

        third = made.agent.reconcile_once([a.details()])
        assert third.removed == sorted([b.tap, missing.tap])
        assert third.isolated == [b.tap]  # still on the bridge, asked for by nobody
        assert not a.ping_ok(b.ip) and not b.ping_ok(a.ip)
        assert f"{b.tap}-ingress" not in str(made.tables()["bridge"])

        assert made.agent.reconcile_once([]).isolated == [a.tap, b.tap]
        links.delete(a.tap)
        links.delete(b.tap)
        last = made.agent.reconcile_once([])
        assert made.tables() == {"bridge": None, "inet": None}
        assert last.removed == [] and last.isolated == []


def test_every_kind_of_rule_loads_and_a_bad_one_drops_only_its_port() -> None:
    with lab() as made:
        a, b, c = made.guest("a"), made.guest("b"), made.guest("c")
        pairs = [AddressPair("10.9.0.0/16", "fa:16:3e:00:00:77"), AddressPair(made.ip(50), "")]
        bad = [SecurityRule("ingress", "IPv4", "nosuchprotocol")]
        report = made.agent.reconcile_once(
            [
                a.details(rules=[*EVERY_KIND, ICMP_IN], allowed_address_pairs=pairs),
                b.details(rules=[*bad, ICMP_IN]),
                c.details(rules=[ICMP_IN]),
            ]
        )
        assert report.applied and set(report.failed) == {b.port_id}
        assert "nosuchprotocol" in report.failed[b.port_id]
        assert sorted(report.up) == sorted([a.port_id, c.port_id])
        assert c.ping_ok(a.ip) and a.ping_ok(c.ip)
        assert not b.ping_ok(a.ip) and not c.ping_ok(b.ip)  # B is dropped both ways


def test_reconciling_does_not_disturb_running_traffic() -> None:
    with lab() as made:
        a, b = made.guest("a"), made.guest("b")
        made.agent.reconcile_once([a.details(), b.details(rules=[ICMP_IN])])
        ping = ["ip", "netns", "exec", a.namespace, "ping", "-n", "-q", "-i", "0.01", "-c", "400"]
        flood = subprocess.Popen([*ping, b.ip], stdout=subprocess.PIPE, text=True)
        try:
            for letter in "cde":  # each new port rewrites the tables while A pings B
                made.guest(letter)
                desired = [a.details(), b.details(rules=[ICMP_IN])]
                desired += [g.details() for g in made.guests[2:]]
                assert made.agent.reconcile_once(desired).applied
            out, _ = flood.communicate(timeout=60)
        finally:
            flood.kill()
            flood.wait()
        assert " 400 received, 0% packet loss" in out


def test_vlan_ports_get_a_bridge_of_their_own() -> None:
    with lab() as made:
        if not vlans_supported(made):
            pytest.skip("this kernel makes no 802.1Q devices (CONFIG_VLAN_8021Q)")
        a, b, c = made.guest("a"), made.guest("b"), made.guest("c")
        icmp = [ICMP_IN]
        vlan100 = [a.details(rules=icmp, vlan=100), b.details(rules=icmp, vlan=100)]
        made.agent.reconcile_once([*vlan100, c.details(rules=icmp)])
        brq, device = vlan_bridge(made.network_id), vlan_device(made.bridge, 100)
        assert [master(name) for name in (a.tap, b.tap, device)] == [brq, brq, brq]
        assert a.ping_ok(b.ip)
        assert not c.ping_ok(a.ip)  # flat and VLAN 100 are different wires
        links.delete(a.tap)
        links.delete(b.tap)
        made.agent.reconcile_once([c.details()])
        assert links.show(brq) is None and links.show(device) is None


def test_vlan_ports_fail_alone_where_the_kernel_has_no_vlans() -> None:
    with lab() as made:
        if vlans_supported(made):
            pytest.skip("this kernel makes 802.1Q devices")
        a, b = made.guest("a"), made.guest("b")
        report = made.agent.reconcile_once([a.details(rules=[ICMP_IN], vlan=100), b.details()])
        assert set(report.failed) == {a.port_id}
        assert "create_vlan" in report.failed[a.port_id]
        assert report.up == [b.port_id]
        assert links.show(vlan_bridge(made.network_id)) is None  # no empty bridge left
        assert nft.list_table("bridge", made.table) is not None
        assert master(a.tap) == made.bridge  # where libvirt put it: untouched
        assert not b.ping_ok(a.ip)  # dropped both ways, though its rules would let B in


def master(device: str) -> str | None:
    found = links.show(device)
    assert found is not None, f"{device} is gone"
    return found.master
