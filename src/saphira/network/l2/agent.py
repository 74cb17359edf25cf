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
from saphira.network.l2.mappings import parse_bridge_mappings
from saphira.network.l2.ovs_bridge import choose_datapath_type
from saphira.network.l2.ovs_monitor import InterfaceMonitor
from saphira.network.l2.ovs_reconcile import OvsReconciler
from saphira.objects.network import PortDetails

LOG = logging.getLogger(__name__)


class _Report(Protocol):
    up: list[str]
    failed: dict[str, str]


class Reconciler(Protocol):
    def reconcile_once(self, desired: list[PortDetails]) -> Any: ...


class L2AgentService(AgentService):
    AGENT_TYPE = "Open vSwitch agent"
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
        self._up: set[str] = set()

    def configurations(self) -> dict[str, Any]:
        return {
            "bridge_mappings": dict(self.mappings),
            "datapath_type": self.datapath_type,
            "devices": len(self._up),
        }

    def watchers(self, wake: Callable[[], None]) -> list[Watcher]:
        """OVSDB's Interface changes, where the ports are really wired in OVS."""
        return [InterfaceMonitor(wake)] if isinstance(self.reconciler, OvsReconciler) else []

    def reconcile(self) -> None:
        ctxt = RequestContext()
        report: _Report = self.reconciler.reconcile_once(self.plugin.get_ports(ctxt, self.host))
        up = set(report.up)
        newly_up, gone = sorted(up - self._up), sorted(self._up - up)
        if newly_up or gone:
            self.plugin.ports_status(ctxt, self.host, newly_up, gone)
        self._up = up
