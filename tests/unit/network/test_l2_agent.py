"""The L2 agent's loop: ports it wired are reported up once, lost ones down."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from saphira import conf as saphira_conf
from saphira.context import RequestContext
from saphira.network.l2.agent import L2AgentService
from saphira.objects.network import PortDetails, Segment
from saphira.rpc.rpcapi.network import NetworkPluginAPI
from saphira.rpc.transport import get_rpc_transport


@dataclass
class _Report:
    up: list[str]
    failed: dict[str, str] = field(default_factory=dict)


class _Plugin(NetworkPluginAPI):
    """The plugin's RPC API answering from memory."""

    def __init__(self, transport: Any) -> None:
        super().__init__(transport)
        self.ports: list[PortDetails] = []
        self.statuses: list[tuple[list[str], list[str]]] = []

    def get_ports(self, ctxt: RequestContext, host: str) -> list[PortDetails]:
        return list(self.ports)

    def ports_status(self, ctxt: RequestContext, host: str, up: list[str], down: list[str]) -> None:
        self.statuses.append((up, down))


class _Reconciler:
    """Wires whatever it is given, except ports listed in ``absent``."""

    def __init__(self) -> None:
        self.absent: set[str] = set()

    def reconcile_once(self, desired: list[PortDetails]) -> _Report:
        return _Report([p.port_id for p in desired if p.port_id not in self.absent])


def _port(port_id: str) -> PortDetails:
    return PortDetails(port_id, "net", "fa:16:3e:00:00:01", Segment("flat", "physnet1"))


def test_ports_are_reported_when_their_state_changes_only() -> None:
    conf = saphira_conf.load([])
    transport = get_rpc_transport(conf, "inproc://l2")
    reconciler, plugin = _Reconciler(), _Plugin(transport)
    agent = L2AgentService(conf, "h1", transport, reconciler, datapath_type="netdev")
    agent.plugin = plugin

    plugin.ports = [_port("a"), _port("b")]
    reconciler.absent = {"b"}  # its tap is not plugged yet
    agent.reconcile()
    agent.reconcile()
    reconciler.absent = set()
    agent.reconcile()
    plugin.ports = [_port("b")]
    agent.reconcile()

    assert plugin.statuses == [(["a"], []), (["b"], []), ([], ["a"])]
    assert agent.configurations() == {
        "bridge_mappings": {"physnet1": "br-physnet1"},
        "datapath_type": "netdev",
        "devices": 1,
    }
