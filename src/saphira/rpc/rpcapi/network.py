"""The network service's RPC interfaces: what its agents ask of it (topic
``network``), and the nudge it sends them when something changed (topic
``network-agent``, fanout). Agents have no database: everything they wire
comes through here, already resolved.

Version history of NetworkPluginAPI:

* 1.0 -- report_state, get_ports, ports_status, get_dhcp_networks

Version history of NetworkAgentAPI:

* 1.0 -- changed(network_ids): every agent resyncs
* 1.1 -- changed(network_ids, change): an ``AgentChange`` names the networks,
  physical networks and hosts concerned; an agent it does not concern skips it
  (``change`` absent, from a 1.0 sender: every agent resyncs, as before)
"""

from __future__ import annotations

from typing import Any, ClassVar

from saphira.context import RequestContext
from saphira.objects.network import AgentChange, DhcpNetwork, PortDetails
from saphira.rpc.client import RPCAPI

TOPIC = "network"
AGENT_TOPIC = "network-agent"


class NetworkPluginAPI(RPCAPI):
    TOPIC: ClassVar[str] = TOPIC
    RPC_API_VERSION: ClassVar[str] = "1.0"

    def report_state(
        self,
        ctxt: RequestContext,
        agent_type: str,
        binary: str,
        host: str,
        configurations: dict[str, Any],
    ) -> None:
        """The agent's heartbeat (a cast): creates its row, keeps it alive."""
        self.cast(
            ctxt, "report_state", version="1.0", agent_type=agent_type, binary=binary,
            host=host, configurations=configurations,
        )  # fmt: skip

    def get_ports(self, ctxt: RequestContext, host: str) -> list[PortDetails]:
        """Every port bound to ``host`` that its L2 agent must wire, with rules resolved."""
        result: list[PortDetails] = self.call(ctxt, "get_ports", version="1.0", host=host)
        return result

    def ports_status(self, ctxt: RequestContext, host: str, up: list[str], down: list[str]) -> None:
        """Ports the agent wired (ACTIVE; Nova hears network-vif-plugged) or lost (DOWN)."""
        self.call(ctxt, "ports_status", version="1.0", host=host, up=up, down=down)

    def get_dhcp_networks(self, ctxt: RequestContext, host: str) -> list[DhcpNetwork]:
        """The networks ``host``'s DHCP agent serves, each with the agent's own port."""
        result: list[DhcpNetwork] = self.call(ctxt, "get_dhcp_networks", version="1.0", host=host)
        return result


class NetworkAgentAPI(RPCAPI):
    """The service's nudge to the agents: reconcile now instead of at the next tick."""

    TOPIC: ClassVar[str] = AGENT_TOPIC
    RPC_API_VERSION: ClassVar[str] = "1.1"

    def changed(self, ctxt: RequestContext, change: AgentChange) -> None:
        """A fanout all agents hear; pinned below 1.1, without the change (all resync)."""
        ids = change.network_ids
        if self.can_send_version("1.1"):
            self.fanout_cast(ctxt, "changed", version="1.1", network_ids=ids, change=change)
        else:
            self.fanout_cast(ctxt, "changed", version="1.0", network_ids=ids)
