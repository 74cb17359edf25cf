"""A write's nudge names the hosts and physical networks it concerns; other agents skip it.

The L2 agents here wire in memory (every bound port counts as wired) and the
DHCP agents' dnsmasq is a recorder, so what is counted is the agents' own
work: their reconcile passes.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from oslo_config import cfg

from saphira.context import RequestContext
from saphira.netsvc.agent_notifier import AgentNotifier
from saphira.netsvc.plugin_rpc import PluginEndpoint
from saphira.network.agent import AgentService
from saphira.network.dhcp.agent import DhcpAgent, SyncReport, Wiring
from saphira.network.dhcp.service import DhcpAgentService
from saphira.network.l2.agent import L2AgentService
from saphira.objects.network import AgentChange, DhcpNetwork, PortDetails
from saphira.rpc import server as rpc_server
from saphira.rpc.rpcapi.network import TOPIC, NetworkAgentAPI
from saphira.rpc.transport import get_rpc_transport
from tests.functional.network.conftest import Neutron, start_network
from tests.polling import wait_for

pytestmark = pytest.mark.functional
FLAT = {"provider:network_type": "flat", "provider:physical_network": "physnet1"}


class _Bus:
    """The notifier's client, keeping what it would have cast."""

    def __init__(self) -> None:
        self.sent: list[AgentChange] = []

    def changed(self, context: RequestContext, change: AgentChange) -> None:
        self.sent.append(change)


class _Recorded(AgentNotifier):
    def __init__(self, conf: cfg.ConfigOpts, bus: _Bus) -> None:
        super().__init__(conf)
        self.bus = bus

    def _client(self) -> Any:
        return self.bus


def _sent(neutron: Neutron, method: str, path: str, status: int, **body: Any) -> list[Any]:
    """What one request's nudge named: [networks, physnets, hosts], or [] for no nudge."""
    bus = _Bus()
    neutron.backend.agents = _Recorded(neutron.identity.conf, bus)
    neutron.ok(method, path, status, json=body or None)
    return [[c.network_ids, c.physnets, c.hosts, c.everything] for c in bus.sent]


def test_a_change_names_the_hosts_and_physnets_it_concerns(neutron: Neutron) -> None:
    net = neutron.network(**FLAT)["id"]
    web, db, other = (neutron.create("security_group", name=n)["id"] for n in "wdo")
    neutron.create("security_group_rule", security_group_id=db, direction="ingress",
                   remote_group_id=web)  # fmt: skip
    h1 = neutron.port(net, **{"binding:host_id": "h1"}, security_groups=[web])
    neutron.port(net, **{"binding:host_id": "h2"}, security_groups=[other])
    neutron.port(net, **{"binding:host_id": "h3"}, security_groups=[db])

    assert _sent(neutron, "POST", "/v2.0/subnets", 201,
                 subnet={"network_id": net, "cidr": "10.7.0.0/24", "ip_version": 4}
                 ) == [[[net], ["physnet1"], [], False]]  # fmt: skip
    rule = {"security_group_id": web, "direction": "ingress", "protocol": "tcp"}
    assert _sent(neutron, "POST", "/v2.0/security-group-rules", 201,
                 security_group_rule=rule) == [[[], [], ["h1"], False]]  # fmt: skip
    new_member = {"network_id": net, "binding:host_id": "h4", "security_groups": [web]}
    assert _sent(neutron, "POST", "/v2.0/ports", 201, port=new_member) == [
        [[net], ["physnet1"], ["h3", "h4"], False]  # db's rule names web as its remote group
    ]
    moved = {"binding:host_id": "h5"}
    assert _sent(neutron, "PUT", f"/v2.0/ports/{h1['id']}", 200, port=moved) == [
        [[net], ["physnet1"], ["h1", "h3", "h5"], False]
    ]
    demo = neutron.projects["demo"]
    assert _sent(neutron, "PUT", f"/v2.0/quotas/{demo}", 200, quota={"port": 77}) == []
    assert _sent(neutron, "PUT", f"/v2.0/ports/{h1['id']}", 200, port={"name": "x"}) == []
    assert _sent(neutron, "PUT", f"/v2.0/networks/{net}", 200, network={"mtu": 1400}) == [
        [[net], ["physnet1"], ["h2", "h3", "h4", "h5"], False]  # every port of the network
    ]


@dataclass
class _Wired:
    up: list[str]
    failed: dict[str, str] = field(default_factory=dict)


class _Wiring:
    """An L2 reconciler in memory, counting its passes."""

    def __init__(self) -> None:
        self.passes = 0

    def reconcile_once(self, desired: list[PortDetails]) -> _Wired:
        self.passes += 1
        return _Wired([port.port_id for port in desired])


class _Dnsmasq(DhcpAgent):
    """The DHCP agent's servers, recorded instead of started."""

    def __init__(self, state_dir: Path, wiring: Wiring) -> None:
        super().__init__(state_dir, wiring)
        self.served: list[list[DhcpNetwork]] = []

    def sync(self, networks: list[DhcpNetwork]) -> SyncReport:
        self.served.append(networks)
        return SyncReport(started=[n.network_id for n in networks])


def _dhcp_agent(conf: cfg.ConfigOpts, host: str, transport: Any, physnet: str) -> DhcpAgentService:
    """A DHCP agent whose bridges map ``physnet``, its dnsmasq a recorder."""
    agent = DhcpAgentService(conf, host, transport)
    agent.mappings = {physnet: "br-sx-concern"}
    agent.dhcp = _Dnsmasq(Path(conf.state_path), agent.dhcp.wiring)
    return agent


def _served(agent: DhcpAgentService) -> list[list[DhcpNetwork]]:
    assert isinstance(agent.dhcp, _Dnsmasq)
    return agent.dhcp.served


@pytest.fixture
def bus_cloud(tmp_path: Path) -> Iterator[Neutron]:
    """A network service whose nudges travel a private in-process bus; agents poll hourly."""
    with tempfile.TemporaryDirectory(prefix="sx-concern-") as state:
        os.chmod(state, 0o711)  # DhcpAgent checks that others may traverse it
        neutron = start_network(
            tmp_path,
            DEFAULT={"transport_url": f"inproc://concern-{secrets.token_hex(4)}",
                     "interface_driver": "openvswitch", "state_path": state},
            ovs={"bridge_mappings": ["physnet1:br-sx-concern"]},
            agent={"report_interval": 3600, "polling_interval": 3600},
        )  # fmt: skip
        try:
            yield neutron
        finally:
            neutron.backend.db.engine.dispose()
            neutron.identity.backend.engine.dispose()


def _status(neutron: Neutron, port_id: str) -> str:
    return str(neutron.ok("GET", f"/v2.0/ports/{port_id}")["port"]["status"])


def _macs(networks: list[DhcpNetwork]) -> set[str]:
    return {host.mac_address for network in networks for host in network.hosts}


def _skipped(agent: AgentService) -> int:
    assert agent.wake is not None
    return agent.wake.skipped


def test_unrelated_agents_skip_the_nudge_and_the_concerned_ones_converge(
    bus_cloud: Neutron,
) -> None:
    conf, backend = bus_cloud.identity.conf, bus_cloud.backend
    transport = get_rpc_transport(conf)
    endpoint = PluginEndpoint(backend.db, backend.settings, backend.enforcer)
    server = rpc_server.start_server(conf, TOPIC, "network", [endpoint], transport=transport)
    wiring = {host: _Wiring() for host in ("h1", "h2")}
    l2 = {h: L2AgentService(conf, h, transport, wiring[h], "simulated") for h in wiring}
    dhcp = {h: _dhcp_agent(conf, h, transport, p) for h, p in (("h1", "physnet1"), ("h2", "p2"))}
    agents: list[AgentService] = [*l2.values(), *dhcp.values()]
    try:
        for agent in agents:
            agent.start()
        wait_for("every agent's first pass", lambda: all(w.passes for w in wiring.values()))
        wait_for("the DHCP agents' first pass", lambda: all(_served(a) for a in dhcp.values()))
        wait_for(
            "the agents' rows", lambda: len(bus_cloud.ok("GET", "/v2.0/agents")["agents"]) == 4
        )

        net = bus_cloud.network(**FLAT)["id"]
        bus_cloud.subnet(net, "10.9.0.0/24")
        port = bus_cloud.port(net, **{"binding:host_id": "h1"})
        wait_for("h1's L2 agent wires the port", lambda: _status(bus_cloud, port["id"]) == "ACTIVE")
        served = _served(dhcp["h1"])
        wait_for("h1's DHCP agent serves it", lambda: port["mac_address"] in _macs(served[-1]))

        wait_for("h2's agents heard all three nudges", lambda: _skipped(l2["h2"]) == 3)
        wait_for("...both of them", lambda: _skipped(dhcp["h2"]) == 3)
        assert wiring["h2"].passes == 1 and len(_served(dhcp["h2"])) == 1
        assert _skipped(l2["h1"]) == 2  # the network and the subnet have no port on h1
        assert _skipped(dhcp["h1"]) == 0

        NetworkAgentAPI(transport, version_cap="1.0").changed(RequestContext(), AgentChange())
        wait_for("a 1.0 nudge, which names nothing, wakes h2", lambda: wiring["h2"].passes == 2)
    finally:
        for agent in agents:
            agent.stop()
        rpc_server.stop_all([server])
