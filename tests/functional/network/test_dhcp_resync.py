"""The DHCP agent's resync is a read: a write only to make its port on a new network."""

from __future__ import annotations

from typing import Any

from saphira.context import RequestContext
from saphira.db.transactions import Database
from saphira.netsvc.agents import AgentRegistry
from saphira.netsvc.plugin_rpc import PluginEndpoint
from saphira.objects.network import DHCP_AGENT
from tests.functional.network.conftest import Neutron

FLAT = {"provider:network_type": "flat", "provider:physical_network": "physnet1"}


class _Counting(Database):
    """The network database, counting its write transactions."""

    def __init__(self, db: Database) -> None:
        super().__init__(db.engine)
        self.writes = 0

    def writer(self) -> Any:
        self.writes += 1
        return super().writer()


def test_the_dhcp_resync_is_a_read_once_its_ports_exist(neutron: Neutron) -> None:
    counting = _Counting(neutron.backend.db)
    registry = AgentRegistry(counting, neutron.backend.settings)
    registry.report_state(DHCP_AGENT, "dhcp", "h1", {"bridge_mappings": {"physnet1": "br-x"}})
    endpoint = PluginEndpoint(counting, neutron.backend.settings, neutron.backend.enforcer)
    net = neutron.network(**FLAT)["id"]
    neutron.subnet(net, "10.8.0.0/24")
    writes = counting.writes

    first = endpoint.get_dhcp_networks(RequestContext(), "h1")
    assert counting.writes == writes + 1  # the agent's port on the network is made once
    assert endpoint.get_dhcp_networks(RequestContext(), "h1") == first
    assert endpoint.get_dhcp_networks(RequestContext(), "h1") == first
    assert counting.writes == writes + 1
    assert [n.network_id for n in first] == [net]

    vlan: dict[str, Any] = {
        **FLAT,
        "provider:network_type": "vlan",
        "provider:segmentation_id": 118,
    }
    other = neutron.network(**vlan)["id"]
    neutron.subnet(other, "10.18.0.0/24")
    writes = counting.writes
    both = endpoint.get_dhcp_networks(RequestContext(), "h1")
    assert sorted(n.network_id for n in both) == sorted([net, other])
    assert counting.writes == writes + 1  # the new network's port; the first one's is kept
    assert [n.dhcp_port for n in both if n.network_id == net] == [first[0].dhcp_port]
