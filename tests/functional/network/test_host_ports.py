"""What the L2 agent is told about its host, and what its reports change."""

from __future__ import annotations

from typing import Any

from saphira.netsvc.agents import AgentRegistry
from saphira.netsvc.host_ports import ports_for_host, report_ports
from saphira.objects.network import OVS_AGENT
from tests.functional.network.conftest import Neutron

BOUND = {"binding:host_id": "h1"}


def _wired(neutron: Neutron, host: str = "h1") -> dict[str, Any]:
    with neutron.backend.db.reader() as session:
        return {details.port_id: details for details in ports_for_host(session, host)}


def test_bound_ports_with_rules_resolved(neutron: Neutron) -> None:
    registry = AgentRegistry(neutron.backend.db, neutron.backend.settings)
    registry.report_state(OVS_AGENT, "l2", "h1", {"bridge_mappings": {"physnet1": "br-x"}})
    flat = {"provider:network_type": "flat", "provider:physical_network": "physnet1"}
    network = neutron.network("admin", mtu=1450, **flat)
    neutron.subnet(network["id"], "10.0.0.0/24")
    web = neutron.create("security_group", name="web")
    neutron.create("security_group_rule", security_group_id=web["id"], direction="ingress",
                   protocol="tcp", port_range_min=80, port_range_max=80)  # fmt: skip
    pairs = [{"ip_address": "10.0.0.200"}]
    a = neutron.port(network["id"], **BOUND, security_groups=[web["id"]])
    b = neutron.port(network["id"], **BOUND, allowed_address_pairs=pairs)
    neutron.port(network["id"], port_security_enabled=False)  # unbound, in no group
    wired = _wired(neutron)
    assert set(wired) == {a["id"], b["id"]}
    first, second = wired[a["id"]], wired[b["id"]]
    assert (first.segment.network_type, first.segment.segmentation_id) == ("flat", None)
    assert first.segment.mtu == 1450 and first.mac_address == a["mac_address"]
    assert [ip.ip_address for ip in first.fixed_ips] == [a["fixed_ips"][0]["ip_address"]]
    tcp = [r for r in first.security_rules if r.protocol == "tcp"]
    assert [(r.direction, r.port_range_min) for r in tcp] == [("ingress", 80)]
    from_group = [r for r in second.security_rules if r.remote_group_id and r.ethertype == "IPv4"]
    (rule,) = from_group
    assert rule.remote_addresses == sorted([b["fixed_ips"][0]["ip_address"], "10.0.0.200"])
    assert [(p.ip_address, p.mac_address) for p in second.allowed_address_pairs] == [
        ("10.0.0.200", b["mac_address"])
    ]
    assert _wired(neutron, "h2") == {}


def test_reports_turn_ports_active_and_down(neutron: Neutron) -> None:
    registry = AgentRegistry(neutron.backend.db, neutron.backend.settings)
    registry.report_state(OVS_AGENT, "l2", "h1", {"bridge_mappings": {"physnet1": "br-x"}})
    network = neutron.network()
    port = neutron.port(network["id"], **BOUND, device_id="vm-1")
    elsewhere = neutron.port(network["id"])
    with neutron.backend.db.writer() as session:
        assert report_ports(session, "h1", [port["id"], elsewhere["id"]], []) == [port["id"]]
    with neutron.backend.db.writer() as session:
        assert report_ports(session, "h1", [port["id"]], []) == []  # already up
    found = neutron.ok("GET", "/v2.0/ports?device_id=vm-1&status=ACTIVE")["ports"]
    assert [p["id"] for p in found] == [port["id"]]
    assert neutron.ok("GET", f"/v2.0/ports/{elsewhere['id']}")["port"]["status"] == "DOWN"
    with neutron.backend.db.writer() as session:
        report_ports(session, "h1", [], [port["id"]])
    assert neutron.ok("GET", f"/v2.0/ports/{port['id']}")["port"]["status"] == "DOWN"
