#!/usr/bin/env python3
"""Agent work per network API write, with the nudge that names what it concerns and without.

In process, no server: the network API (its app, no token middleware) over
SQLite, its RPC endpoint and ``--hosts`` (20) L2 agents that wire in memory
plus one DHCP agent (dnsmasq recorded, not run) on a private in-process bus;
agents poll hourly, so only nudges wake them. The same writes (a network, a
subnet, ``--ports`` (40) ports bound round-robin to the hosts, a security
group rule) run twice: with the 1.1 nudge (an ``AgentChange``: agents it
does not concern skip it) and pinned to 1.0 (a nudge that names nothing, as
every write sent before: every agent resyncs), the second time with the
DHCP resync in a write transaction as it was. Prints reconcile passes, the
service's RPC answers to agents (get_ports, get_dhcp_networks) and the
network database's write transactions (the API's own, ports_status, the
DHCP resync), per API write; asserts nothing.

    .venv/bin/python bench/agent_nudges.py [--hosts H] [--ports P]
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from werkzeug.test import Client

from saphira.api.auth.middleware import CONTEXT_KEY
from saphira.api.network import build_backend, build_network_app
from saphira.conf import load
from saphira.context import RequestContext
from saphira.db.network import sync
from saphira.db.transactions import Database
from saphira.netsvc.agent_notifier import AgentNotifier
from saphira.netsvc.plugin_rpc import PluginEndpoint
from saphira.network.agent import AgentService
from saphira.network.dhcp.agent import DhcpAgent, SyncReport
from saphira.network.dhcp.service import DhcpAgentService
from saphira.network.l2.agent import L2AgentService
from saphira.objects.network import DhcpNetwork, PortDetails
from saphira.rpc import server as rpc_server
from saphira.rpc.rpcapi.network import TOPIC, NetworkAgentAPI
from saphira.rpc.transport import get_rpc_transport
from saphira.service.netplane import SimulatedWiring

ADMIN = RequestContext(user_id="bench", project_id="bench", roles=("admin",))


class Counting(Database):
    def __init__(self, db: Database) -> None:
        super().__init__(db.engine)
        self.writes = 0

    def writer(self) -> Any:
        self.writes += 1
        return super().writer()


class CountingEndpoint(PluginEndpoint):
    answers = 0
    dhcp_writes = False  # True: the DHCP resync in a write transaction, as before

    def get_ports(self, ctxt: RequestContext, host: str) -> list[PortDetails]:
        CountingEndpoint.answers += 1
        return super().get_ports(ctxt, host)

    def get_dhcp_networks(self, ctxt: RequestContext, host: str) -> list[DhcpNetwork]:
        CountingEndpoint.answers += 1
        if not self.dhcp_writes:
            return super().get_dhcp_networks(ctxt, host)
        with self.db.writer() as session:
            return self._dhcp_networks(session, host, make_ports=True) or []


class Passes:
    count = 0


class CountingWiring(SimulatedWiring):
    def reconcile_once(self, desired: list[PortDetails]) -> Any:
        Passes.count += 1
        return super().reconcile_once(desired)


class Recorder(DhcpAgent):
    def sync(self, networks: list[DhcpNetwork]) -> SyncReport:
        Passes.count += 1
        return SyncReport(started=[n.network_id for n in networks])


class Pinned(AgentNotifier):
    """The nudge as a 1.0 sender sends it: naming nothing, waking every agent."""

    def __init__(self, conf: Any, transport: Any) -> None:
        super().__init__(conf)
        self._api = NetworkAgentAPI(transport, version_cap="1.0")


def settle(agents: list[AgentService]) -> None:
    """Until no agent's counters moved for half a second."""
    last: tuple[int, ...] = ()
    while True:
        now = (Passes.count, CountingEndpoint.answers, *(a.wake.skipped for a in agents if a.wake))
        if now == last:
            return
        last = now
        time.sleep(0.5)


def writes(client: Client, hosts: list[str], ports: int, vlan: int) -> int:
    """The API writes of one round; how many."""

    def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = client.post(f"/v2.0/{path}", json=body, environ_overrides={CONTEXT_KEY: ADMIN})
        assert response.status_code == 201, response.get_data(as_text=True)
        found: dict[str, Any] = response.get_json()
        return found

    segment = {"provider:network_type": "vlan", "provider:physical_network": "physnet1",
               "provider:segmentation_id": vlan}  # fmt: skip
    net = post("networks", {"network": {"name": "b", **segment}})["network"]["id"]
    post("subnets", {"subnet": {"network_id": net, "cidr": f"10.{vlan}.0.0/16", "ip_version": 4}})
    group = post("security-groups", {"security_group": {"name": f"g{vlan}"}})["security_group"]
    for n in range(ports):
        body = {"network_id": net, "binding:host_id": hosts[n % len(hosts)],
                "security_groups": [group["id"]]}  # fmt: skip
        post("ports", {"port": body})
    rule = {"security_group_id": group["id"], "direction": "ingress", "protocol": "tcp"}
    post("security-group-rules", {"security_group_rule": rule})
    return 4 + ports


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=20)
    parser.add_argument("--ports", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sx-nudges-") as state:
        os.chmod(state, 0o711)  # the DHCP agent checks that dnsmasq could reach it
        conf = load(overrides={
            "DEFAULT": {"state_path": state, "interface_driver": "openvswitch",
                        "transport_url": f"inproc://nudges-{secrets.token_hex(4)}"},
            "ovs": {"bridge_mappings": ["physnet1:br-bench"]},
            "agent": {"report_interval": 3600, "polling_interval": 3600},
        })  # fmt: skip
        run(conf, args.hosts, args.ports)


def run(conf: Any, host_count: int, ports: int) -> None:
    backend = build_backend(conf)
    sync(backend.db.engine)
    backend.db = counting = Counting(backend.db)
    transport = get_rpc_transport(conf)
    endpoint = CountingEndpoint(counting, backend.settings, backend.enforcer)
    server = rpc_server.start_server(conf, TOPIC, "network", [endpoint], transport=transport)
    hosts = [f"bench-{n}" for n in range(host_count)]
    agents: list[AgentService] = [
        L2AgentService(conf, host, transport, CountingWiring(), "simulated") for host in hosts
    ]
    dhcp = DhcpAgentService(conf, hosts[0], transport)
    dhcp.dhcp = Recorder(Path(conf.state_path), dhcp.dhcp.wiring)
    agents.append(dhcp)
    client = Client(build_network_app(backend))
    try:
        for agent in agents:
            agent.start()
        settle(agents)
        print(f"{host_count} L2 agents and 1 DHCP agent; per API write:")
        for name, notifier, vlan in (
            (
                "now:    the nudge names what it concerns, the DHCP resync reads",
                AgentNotifier(conf),
                11,
            ),
            ("before: every agent resyncs, the DHCP resync writes", Pinned(conf, transport), 12),
        ):
            backend.agents, endpoint.dhcp_writes = notifier, vlan == 12
            before = Passes.count, CountingEndpoint.answers, counting.writes
            made = writes(client, hosts, ports, vlan)
            settle(agents)
            passes, answers, written = (
                (now - then) / made
                for now, then in zip(
                    (Passes.count, CountingEndpoint.answers, counting.writes), before, strict=True
                )
            )
            print(f"  {name} ({made} writes):\n    {passes:6.2f} reconcile passes, "
                  f"{answers:6.2f} agent requests answered, "
                  f"{written:5.2f} write transactions")  # fmt: skip
    finally:
        for agent in agents:
            agent.stop()
        rpc_server.stop_all([server])
        backend.db.engine.dispose()


if __name__ == "__main__":
    main()
