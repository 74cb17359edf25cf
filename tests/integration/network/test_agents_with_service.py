"""The network service and its two agents over the in-process bus, on real OVS and dnsmasq.

A port created through the API and bound to the agents' host is wired by the
L2 agent (it turns ACTIVE) and served by the DHCP agent (a guest namespace
plugged in with the port's MAC gets exactly the port's address); the agents
show alive with their bridge mappings and turn dead once stopped; deleting
the network takes the DHCP namespace and dnsmasq away.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from saphira.netsvc.plugin_rpc import PluginEndpoint
from saphira.network.dhcp.service import DhcpAgentService
from saphira.network.l2.agent import L2AgentService
from saphira.network.ovs_daemons import ensure_running
from saphira.privsep import netns
from saphira.rpc import server as rpc_server
from saphira.rpc.rpcapi.network import TOPIC
from saphira.rpc.transport import get_rpc_transport
from tests.functional.network.conftest import Neutron, start_network
from tests.integration.network.dhcp_host import guest, lease, ovs_bridge, sh, state_dir
from tests.polling import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("ovs")]
HOST = "sx-agents-host"


@pytest.fixture
def neutron(tmp_path: Path) -> Iterator[Neutron]:
    ensure_running()
    with ovs_bridge() as bridge, state_dir() as state:
        service = start_network(
            tmp_path,
            DEFAULT={"agent_down_time": 2, "interface_driver": "openvswitch",
                     "state_path": str(state)},
            ovs={"bridge_mappings": [f"physnet1:{bridge}"]},
            agent={"report_interval": 0.5, "polling_interval": 0.5},
        )  # fmt: skip
        try:
            yield service
        finally:
            service.backend.db.engine.dispose()
            service.identity.backend.engine.dispose()


def agents(neutron: Neutron) -> dict[str, dict[str, Any]]:
    listed = neutron.ok("GET", "/v2.0/agents")["agents"]
    return {a["agent_type"]: a for a in listed if a["host"] == HOST}


def status(neutron: Neutron, port_id: str) -> str:
    return str(neutron.ok("GET", f"/v2.0/ports/{port_id}")["port"]["status"])


def test_agents_wire_serve_and_report(neutron: Neutron, tmp_path: Path) -> None:
    conf, backend = neutron.identity.conf, neutron.backend
    transport = get_rpc_transport(conf, f"inproc://agents-{secrets.token_hex(4)}")
    endpoint = PluginEndpoint(backend.db, backend.settings, backend.enforcer)
    server = rpc_server.start_server(conf, TOPIC, "network", [endpoint], transport=transport)
    l2, dhcp = L2AgentService(conf, HOST, transport), DhcpAgentService(conf, HOST, transport)
    bridge = conf.ovs.bridge_mappings[0].split(":")[1]
    try:
        l2.start()
        dhcp.start()
        alive = wait_for("agents alive", lambda: len(agents(neutron)) == 2 and agents(neutron))
        assert {a["alive"] for a in alive.values()} == {True}
        mapping = alive["Open vSwitch agent"]["configurations"]["bridge_mappings"]
        assert mapping == {"physnet1": bridge}

        flat = {"provider:network_type": "flat", "provider:physical_network": "physnet1"}
        network = neutron.network(**flat)
        neutron.subnet(network["id"], "10.91.0.0/24")
        port = neutron.port(network["id"], **{"binding:host_id": HOST})
        assert port["binding:vif_type"] == "ovs"
        address = port["fixed_ips"][0]["ip_address"]
        with guest(bridge, port["mac_address"], ovs=True) as nic:
            outer = f"{nic.namespace}o"
            sh("ovs-vsctl", "set", "Interface", outer, f"external_ids:iface-id={port['id']}")
            wait_for(
                "port ACTIVE",
                lambda: (
                    neutron.ok("GET", f"/v2.0/ports/{port['id']}")["port"]["status"] == "ACTIVE"
                ),
            )
            got = wait_for("a DHCP lease", lambda: lease(nic, tmp_path), timeout=60)
            assert got["ip"] == address
            assert "169.254.169.254/32" in got.get("staticroutes", "")

        neutron.ok("DELETE", f"/v2.0/ports/{port['id']}", 204)
        neutron.ok("DELETE", f"/v2.0/networks/{network['id']}", 204)
        namespace = f"qdhcp-{network['id']}"
        wait_for("DHCP namespace gone", lambda: namespace not in netns.names())
    finally:
        l2.stop()
        dhcp.stop()
        dhcp.dhcp.sync([])  # a failed test may have left a network served
        rpc_server.stop_all([server])
    dead = wait_for("both agents listed dead", lambda: both_dead(agents(neutron)))
    assert set(dead) == {"Open vSwitch agent", "DHCP agent"}


def both_dead(listed: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]] | None:
    """The two agents, once both are listed and neither is alive (an empty list is not 'dead')."""
    if len(listed) == 2 and not any(a["alive"] for a in listed.values()):
        return listed
    return None


def test_changes_wake_the_agents_at_once(tmp_path: Path) -> None:
    """Agents that would poll once a minute serve a new network within seconds (the
    API's nudge), and report a port up as soon as its tap is plugged (OVSDB's watch)."""
    ensure_running()
    url = f"inproc://wake-{secrets.token_hex(4)}"
    with ovs_bridge() as bridge, state_dir() as state:
        neutron = start_network(
            tmp_path,
            DEFAULT={"interface_driver": "openvswitch", "state_path": str(state),
                     "transport_url": url},
            ovs={"bridge_mappings": [f"physnet1:{bridge}"]},
            agent={"report_interval": 60, "polling_interval": 60},
        )  # fmt: skip
        conf, backend = neutron.identity.conf, neutron.backend
        transport = get_rpc_transport(conf)
        endpoint = PluginEndpoint(backend.db, backend.settings, backend.enforcer)
        server = rpc_server.start_server(conf, TOPIC, "network", [endpoint], transport=transport)
        l2, dhcp = L2AgentService(conf, HOST, transport), DhcpAgentService(conf, HOST, transport)
        try:
            l2.start()
            dhcp.start()
            wait_for("the agents' first pass", lambda: len(agents(neutron)) == 2)
            flat = {"provider:network_type": "flat", "provider:physical_network": "physnet1"}
            network = neutron.network(**flat)
            neutron.subnet(network["id"], "10.92.0.0/24")
            namespace = f"qdhcp-{network['id']}"
            wait_for("the DHCP namespace", lambda: namespace in netns.names(), timeout=15)
            port = neutron.port(network["id"], **{"binding:host_id": HOST})
            with guest(bridge, port["mac_address"], ovs=True) as nic:
                outer = f"{nic.namespace}o"
                sh("ovs-vsctl", "set", "Interface", outer, f"external_ids:iface-id={port['id']}")
                wait_for("the port ACTIVE", lambda: status(neutron, port["id"]) == "ACTIVE", 10)
            neutron.ok("DELETE", f"/v2.0/ports/{port['id']}", 204)
            neutron.ok("DELETE", f"/v2.0/networks/{network['id']}", 204)
            wait_for("the namespace gone", lambda: namespace not in netns.names(), timeout=15)
        finally:
            l2.stop()
            dhcp.stop()
            dhcp.dhcp.sync([])
            rpc_server.stop_all([server])
            backend.db.engine.dispose()
            neutron.identity.backend.engine.dispose()
