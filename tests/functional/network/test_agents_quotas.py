"""Agents (heartbeats, alive, admin only) and quotas (limits, usage, OverQuota)."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa

from saphira.db.network.models_ext import Agent
from saphira.netsvc.agents import AgentRegistry
from saphira.objects.network import DHCP_AGENT, OVS_AGENT
from tests.functional.network.conftest import Neutron


def test_agents_from_heartbeats(neutron: Neutron) -> None:
    assert neutron.ok("GET", "/v2.0/agents")["agents"] == []
    registry = AgentRegistry(neutron.backend.db, neutron.backend.settings)
    config = {"bridge_mappings": {"physnet1": "br-physnet1"}}
    assert registry.report_state(OVS_AGENT, "saphira-l2-agent", "h1", config, "N/A") == "new"
    assert registry.report_state(OVS_AGENT, "saphira-l2-agent", "h1", config, "N/A") == "alive"
    registry.report_state(DHCP_AGENT, "saphira-dhcp-agent", "h1", {}, "dhcp_agent")
    (l2,) = neutron.ok("GET", f"/v2.0/agents?agent_type={OVS_AGENT}")["agents"]
    assert (l2["alive"], l2["host"], l2["configurations"]) == (True, "h1", config)
    assert l2["heartbeat_timestamp"][10] == " "  # Neutron's "YYYY-MM-DD HH:MM:SS"
    with neutron.backend.db.writer() as session:
        stale = dt.datetime.now(dt.UTC).replace(tzinfo=None) - dt.timedelta(seconds=300)
        session.execute(
            sa.update(Agent).where(Agent.id == l2["id"]).values(heartbeat_timestamp=stale)
        )
    path = f"/v2.0/agents/{l2['id']}"
    assert neutron.ok("GET", path)["agent"]["alive"] is False
    assert [a["agent_type"] for a in neutron.ok("GET", "/v2.0/agents?alive=false")["agents"]] == [
        OVS_AGENT
    ]
    assert registry.report_state(OVS_AGENT, "saphira-l2-agent", "h1", config, "N/A") == "revived"
    body = {"agent": {"admin_state_up": False, "description": "draining"}}
    updated = neutron.ok("PUT", path, json=body)["agent"]
    assert (updated["admin_state_up"], updated["description"]) == (False, "draining")
    assert neutron.fault("PUT", path, 400, json={"agent": {"host": "h9"}}) == "HTTPBadRequest"
    assert neutron.fault("GET", "/v2.0/agents", 403, "demo") == "PolicyNotAuthorized"
    neutron.ok("DELETE", path, 204)
    assert neutron.fault("GET", path, 404) == "AgentNotFound"


def test_quotas_show_update_and_enforce(neutron: Neutron) -> None:
    demo = neutron.projects["demo"]
    path = f"/v2.0/quotas/{demo}"
    limits = neutron.ok("GET", path, user="demo")["quota"]
    assert limits == {"network": 100, "subnet": 100, "port": 500, "security_group": 10,
                      "security_group_rule": 100}  # fmt: skip
    assert neutron.ok("GET", f"{path}/default", user="demo")["quota"] == limits
    body = {"quota": {"network": 1, "port": 1, "force": True}}
    assert neutron.fault("PUT", path, 403, "demo", json=body) == "PolicyNotAuthorized"
    assert neutron.ok("PUT", path, json=body)["quota"]["network"] == 1
    network = neutron.network("demo")
    create = {"network": {"name": "second"}}
    assert neutron.fault("POST", "/v2.0/networks", 409, "demo", json=create) == "OverQuota"
    neutron.port(network["id"], "demo")
    port = {"port": {"network_id": network["id"]}}
    assert neutron.fault("POST", "/v2.0/ports", 409, "demo", json=port) == "OverQuota"
    details = neutron.ok("GET", f"{path}/details.json", user="demo")["quota"]
    assert details["network"] == {"limit": 1, "used": 1, "reserved": 0}
    assert details["security_group"]["used"] == 1  # the default group
    assert neutron.fault("GET", "/v2.0/quotas", 403, "demo") == "AdminRequired"
    listed = neutron.ok("GET", "/v2.0/quotas")["quotas"]
    assert [q["project_id"] for q in listed] == [demo]
    below = {"quota": {"network": 0, "check_limit": True}}
    assert neutron.fault("PUT", path, 400, json=below) == "InvalidInput"
    assert neutron.fault("PUT", path, 400, json={"quota": {"router": 5}}) == "HTTPBadRequest"
    assert neutron.fault("PUT", path, 400, json={"quota": {"port": -5}}) == "HTTPBadRequest"
    assert neutron.fault("GET", f"/v2.0/quotas/{neutron.projects['alt']}", 403, "demo") == (
        "PolicyNotAuthorized"
    )
    neutron.ok("DELETE", path, 204)
    assert neutron.ok("GET", path)["quota"]["network"] == 100
