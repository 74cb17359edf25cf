"""The network service's side of NetworkPluginAPI (topic ``network``): what
the agents ask, answered from the database they may not touch; ports that
came up are also reported to the compute API (``saphira.clients.compute_events``)."""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy.orm import Session

from saphira.clients.compute_events import ComputeEvents
from saphira.context import RequestContext
from saphira.db.transactions import Database
from saphira.netsvc import dhcp_networks, host_ports
from saphira.netsvc.agents import AgentRegistry
from saphira.netsvc.settings import Settings
from saphira.netsvc.vif_events import vif_plugged_events
from saphira.objects.network import DHCP_AGENT, DhcpNetwork, PortDetails
from saphira.policy import Enforcer
from saphira.rpc.rpcapi.network import NetworkPluginAPI
from saphira.rpc.server import endpoint_target

LOG = logging.getLogger(__name__)


class PluginEndpoint:
    target = endpoint_target(NetworkPluginAPI.RPC_API_VERSION)

    def __init__(
        self,
        db: Database,
        settings: Settings,
        enforcer: Enforcer,
        notifier: ComputeEvents | None = None,
    ) -> None:
        self.db, self.settings, self.enforcer = db, settings, enforcer
        self.agents = AgentRegistry(db, settings)
        self.notifier = notifier

    def report_state(
        self,
        ctxt: RequestContext,
        agent_type: str,
        binary: str,
        host: str,
        configurations: dict[str, Any],
    ) -> None:
        state = self.agents.report_state(agent_type, binary, host, configurations)
        if state != "alive":
            LOG.info("agent %s on %s: %s", agent_type, host, state)

    def get_ports(self, ctxt: RequestContext, host: str) -> list[PortDetails]:
        with self.db.reader() as session:
            return host_ports.ports_for_host(session, host)

    def ports_status(self, ctxt: RequestContext, host: str, up: list[str], down: list[str]) -> None:
        with self.db.writer() as session:
            became = host_ports.report_ports(session, host, up, down)
            events = vif_plugged_events(session, became) if self.notifier else []
        if became:
            LOG.info("ports up on %s: %s", host, ", ".join(became))
        if self.notifier is not None:
            self.notifier.send(events)

    def get_dhcp_networks(self, ctxt: RequestContext, host: str) -> list[DhcpNetwork]:
        """Networks on the physnets the host's DHCP agent maps (its reported bridges).

        A read, unless a network still lacks the agent's port: then one write makes it.
        """
        with self.db.reader() as session:
            found = self._dhcp_networks(session, host, make_ports=False)
        if found is not None:
            return found
        with self.db.writer() as session:
            made = self._dhcp_networks(session, host, make_ports=True)
        return made or []

    def _dhcp_networks(
        self, session: Session, host: str, *, make_ports: bool
    ) -> list[DhcpNetwork] | None:
        physnets = self.agents.mapped_physnets(session, DHCP_AGENT, host)
        return dhcp_networks.for_host(
            session, self.enforcer, self.settings, host, physnets, make_ports=make_ports
        )
