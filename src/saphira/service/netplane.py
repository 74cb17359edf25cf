"""The network side of the control plane: the service's RPC endpoint for its
agents (wherever the network database is reachable: ``saphira up``, and
``saphira-api`` beside the network API), and this host's L2 and DHCP agents
(wherever guests are wired: ``saphira up``, ``saphira-network-agent``)."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Any

from oslo_config import cfg

from saphira.api.network import build_backend
from saphira.api.network.app import Backend
from saphira.clients.compute_events import ComputeEvents
from saphira.netsvc.plugin_rpc import PluginEndpoint
from saphira.network.agent import AgentService
from saphira.network.dhcp.service import DhcpAgentService
from saphira.network.l2.agent import L2AgentService, LinuxBridgeAgentService
from saphira.network.l2.errors import L2Error
from saphira.network.l2.mappings import host_bridge_mappings, mechanism
from saphira.objects.network import PortDetails
from saphira.privsep import context as privileged
from saphira.privsep import links, ovs
from saphira.rpc import server as rpc_server
from saphira.rpc.rpcapi.network import TOPIC
from saphira.service import unprivileged

LOG = logging.getLogger(__name__)


@dataclass
class _AllWired:
    up: list[str]
    failed: dict[str, str] = field(default_factory=dict)


class SimulatedWiring:
    """The L2 reconciler of a simulated host: every bound port counts as wired."""

    def reconcile_once(self, desired: list[PortDetails]) -> _AllWired:
        return _AllWired([port.port_id for port in desired])


def agent_host_problem(conf: cfg.ConfigOpts) -> str | None:
    """Why this host cannot run its network agents, or None (then ``interface_driver``
    is set to the mechanism in use, as the DHCP agent must plug the same way).

    As Neutron's OVS agent, a mapped bridge that does not exist stops the
    start: the agent would report a mapping it cannot wire (PortBindingFailed
    for every port there). No mapping at all is refused too: with no tunnels,
    such an agent wires nothing.
    """
    why = privileged.unavailable_reason()
    if why is not None:
        return f"the network agents need the privileged helper: {why}"
    chosen = mechanism(conf)
    if chosen is None:
        return "Open vSwitch is not installed and [ml2] mechanism_drivers leaves out linuxbridge"
    group = "linux_bridge" if chosen == "linuxbridge" else "ovs"
    try:
        mappings = host_bridge_mappings(conf, chosen)
    except L2Error as error:
        return f"[{group}] {error.kwargs.get('detail', error.message)}"
    if not mappings:
        return f"[{group}] bridge_mappings is empty: this host could wire no network"
    for physnet, bridge in mappings.items():
        found = ovs.bridge(bridge) if chosen == "openvswitch" else links.show(bridge)
        if found is None:
            return (
                f"bridge {bridge} of physical network {physnet} ([{group}] bridge_mappings) "
                "does not exist: create it (and add the provider NIC) first"
            )
    conf.set_override("interface_driver", chosen)
    return None


def drop_to(name: str, conf: cfg.ConfigOpts) -> None:
    """Started as root, the helper already running: the agents go on as ``name``
    (created if missing), owner of the state directory, as ``saphira up`` does."""
    if os.geteuid() != 0:
        raise unprivileged.DropError(user=name, detail="only root can change to another user")
    account = unprivileged.ensure_user(name)
    state = str(conf.state_path)
    unprivileged.hand_over(state, account)
    unprivileged.grant_reach([state], account)
    unprivileged.drop(account, home=state)
    LOG.info("running as %s (uid %d); the privileged helper stays root", name, account.uid)


@dataclass
class NetworkPlane:
    conf: cfg.ConfigOpts
    transport: Any
    backend: Backend | None = None
    server: rpc_server.Server | None = None
    agents: list[AgentService] = field(default_factory=list)

    def start_service(self) -> None:
        self.backend = build_backend(self.conf)
        endpoint = PluginEndpoint(
            self.backend.db, self.backend.settings, self.backend.enforcer,
            ComputeEvents.from_conf(self.conf),
        )  # fmt: skip
        self.server = rpc_server.start_server(
            self.conf, TOPIC, self.conf.host, [endpoint], transport=self.transport
        )
        LOG.info("network service: answering agents")

    def start_agents(self) -> None:
        """This host's L2 and DHCP agents, and an L2 agent per simulated host.

        Simulated hosts (``[fake_driver] hosts``) have no bridges, but their
        ports must still bind and turn ACTIVE, or every build there with a NIC
        would fail: their agent reports each bound port wired at once.
        """
        wiring: type[L2AgentService | LinuxBridgeAgentService] = L2AgentService
        if mechanism(self.conf) == "linuxbridge":
            wiring = LinuxBridgeAgentService
        agents: list[AgentService] = [
            wiring(self.conf, self.conf.host, self.transport),
            DhcpAgentService(self.conf, self.conf.host, self.transport),
        ]
        agents += [
            L2AgentService(self.conf, host, self.transport, SimulatedWiring(), "simulated")
            for host in self.conf.fake_driver.hosts
            if host != self.conf.host
        ]
        for agent in agents:
            agent.start()
            self.agents.append(agent)
        LOG.info("network agents on %s: running", ", ".join(a.host for a in agents))

    def stop(self) -> None:
        for agent in reversed(self.agents):
            agent.stop()
        self.agents.clear()
        if self.server is not None:
            rpc_server.stop_all([self.server])
            self.server = None
        if self.backend is not None:
            self.backend.db.engine.dispose()
            self.backend = None
