"""Port binding: which VIF type a host can give a port, decided by its L2 agent.

A host can bind a port when an alive L2 agent there maps the network's
physical network to a bridge (``configurations["bridge_mappings"]``, a dict
as Neutron's agents report it). An Open vSwitch agent plugs guests straight
into that bridge; the Linux bridge agent uses it for flat networks and a
``brq<network id>`` bridge per VLAN network, as Neutron's does. Anything else
is ``binding_failed``; no host is ``unbound``.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.network.models import Network, Port
from saphira.db.network.models_ext import Agent
from saphira.netsvc.agents import is_alive
from saphira.netsvc.settings import Settings
from saphira.objects.network import LINUXBRIDGE_AGENT, OVS_AGENT

UNBOUND, FAILED = "unbound", "binding_failed"
VIF_TYPES = {OVS_AGENT: "ovs", LINUXBRIDGE_AGENT: "bridge"}


def _details(agent: Agent, network: Network, bridge: str) -> dict[str, Any]:
    details: dict[str, Any] = {"port_filter": True, "connectivity": "l2"}
    if agent.agent_type == OVS_AGENT:
        datapath = agent.configurations.get("datapath_type", "system")
        details.update(bridge_name=bridge, datapath_type=datapath, ovs_hybrid_plug=False)
    elif network.segment.network_type == "vlan":
        details["bridge_name"] = f"brq{network.id[:11]}"
    else:
        details["bridge_name"] = bridge
    return details


def bind(session: Session, settings: Settings, port: Port, network: Network) -> None:
    port.binding_vif_type, port.binding_vif_details = UNBOUND, {}
    if not port.binding_host_id:
        return
    port.binding_vif_type = FAILED
    agents = session.scalars(
        sa.select(Agent)
        .where(Agent.host == port.binding_host_id, Agent.agent_type.in_(list(VIF_TYPES)))
        .order_by(Agent.agent_type.desc())  # Open vSwitch first where a host has both
    )
    physnet = network.segment.physical_network
    for agent in agents:
        mappings = agent.configurations.get("bridge_mappings") or {}
        bridge = mappings.get(physnet) if isinstance(mappings, dict) else None
        if bridge and is_alive(agent, settings.agent_down_time):
            port.binding_vif_type = VIF_TYPES[agent.agent_type]
            port.binding_vif_details = _details(agent, network, str(bridge))
            return
