"""The L2 agent on one host: wires and filters the ports bound here.

Each pass asks the network service for this host's ports and hands them to
the reconciler; ports that became wired are reported up (the service then
tells Nova ``network-vif-plugged``), ports that stopped being so down.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from oslo_config import cfg

from saphira.context import RequestContext
from saphira.network.agent import AgentService, Watcher
from saphira.network.l2.linuxbridge import LinuxBridgeReconciler
from saphira.network.l2.mappings import parse_bridge_mappings
from saphira.network.l2.ovs_bridge import choose_datapath_type
from saphira.network.l2.ovs_monitor import InterfaceMonitor
from saphira.network.l2.ovs_reconcile import OvsReconciler
from saphira.objects.network import LINUXBRIDGE_AGENT, OVS_AGENT, PortDetails

LOG = logging.getLogger(__name__)


class _Report(Protocol):
    up: list[str]
    failed: dict[str, str]


class Reconciler(Protocol):
    def reconcile_once(self, desired: list[PortDetails]) -> Any: ...


class _WiringAgent(AgentService):
    """What both L2 agents do: reconcile this host's ports, report changes in state."""

    reconciler: Reconciler

    def __init__(self, conf: cfg.ConfigOpts, host: str, transport: Any) -> None:
        super().__init__(conf, host, transport)
        self._up: set[str] = set()

    def reconcile(self) -> None:
        ctxt = RequestContext()
        report: _Report = self.reconciler.reconcile_once(self.plugin.get_ports(ctxt, self.host))
        up = set(report.up)
        newly_up, gone = sorted(up - self._up), sorted(self._up - up)
        if newly_up or gone:
            self.plugin.ports_status(ctxt, self.host, newly_up, gone)
        self._up = up


class L2AgentService(_WiringAgent):
    """The Open vSwitch agent."""

    AGENT_TYPE = OVS_AGENT
    BINARY = "neutron-openvswitch-agent"

    def __init__(
        self,
        conf: cfg.ConfigOpts,
        host: str,
        transport: Any,
        reconciler: Reconciler | None = None,
        datapath_type: str | None = None,
    ) -> None:
        """``datapath_type`` None: probe it (the service binds ports with it)."""
        super().__init__(conf, host, transport)
        self.mappings = parse_bridge_mappings(conf.ovs.bridge_mappings)
        if datapath_type is None:
            datapath_type, why = choose_datapath_type()
            LOG.info("OVS datapath: %s (%s)", datapath_type, why)
        self.datapath_type = datapath_type
        self.reconciler = reconciler or OvsReconciler(self.mappings, datapath_type)

    def configurations(self) -> dict[str, Any]:
        return {
            "bridge_mappings": dict(self.mappings),
            "datapath_type": self.datapath_type,
            "devices": len(self._up),
        }

    def watchers(self, wake: Callable[[], None]) -> list[Watcher]:
        """OVSDB's Interface changes, where the ports are really wired in OVS."""
        return [InterfaceMonitor(wake)] if isinstance(self.reconciler, OvsReconciler) else []


class LinuxBridgeAgentService(_WiringAgent):
    """The Linux bridge agent: taps on kernel bridges, security groups in nftables.

    It only polls: a tap libvirt adds is wired at the next ``polling_interval``.
    """

    AGENT_TYPE = LINUXBRIDGE_AGENT
    BINARY = "neutron-linuxbridge-agent"

    def __init__(
        self, conf: cfg.ConfigOpts, host: str, transport: Any, reconciler: Reconciler | None = None
    ) -> None:
        super().__init__(conf, host, transport)
        self.mappings = parse_bridge_mappings(conf.linux_bridge.bridge_mappings)
        self.reconciler = reconciler or LinuxBridgeReconciler(self.mappings)

    def configurations(self) -> dict[str, Any]:
        return {"bridge_mappings": dict(self.mappings), "devices": len(self._up)}
