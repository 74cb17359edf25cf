"""The DHCP agent on one host: one dnsmasq per network it is asked to serve."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from oslo_config import cfg

from saphira.context import RequestContext
from saphira.network.agent import AgentService
from saphira.network.dhcp import leases
from saphira.network.dhcp.agent import DhcpAgent, mapped_bridges
from saphira.network.l2.mappings import host_bridge_mappings
from saphira.network.metadata import service as metadata
from saphira.objects.network import DHCP_AGENT, AgentChange

LOG = logging.getLogger(__name__)


class DhcpAgentService(AgentService):
    AGENT_TYPE = DHCP_AGENT
    BINARY = "neutron-dhcp-agent"

    def __init__(self, conf: cfg.ConfigOpts, host: str, transport: Any) -> None:
        super().__init__(conf, host, transport)
        self.mappings = host_bridge_mappings(conf, conf.interface_driver)
        interface = "ovs" if conf.interface_driver == "openvswitch" else "linuxbridge"
        self.metadata = metadata.build(conf)
        self.dhcp = DhcpAgent(
            Path(conf.state_path), mapped_bridges(self.mappings), interface=interface,
            metadata=self.metadata.proxies if self.metadata else None,
        )  # fmt: skip
        self._served = 0
        self._reported: dict[str, Any] | None = None

    def configurations(self) -> dict[str, Any]:
        return {
            "dhcp_driver": "dnsmasq",
            "bridge_mappings": dict(self.mappings),
            "networks": self._served,
            "leases": leases.leased(self.dhcp.root),
        }

    def report(self) -> None:
        """Also sent as soon as a reconcile sees the configurations change (a new lease,
        a network served or retired), not only at the next heartbeat."""
        configurations = self.configurations()
        self.plugin.report_state(
            RequestContext(), self.AGENT_TYPE, self.BINARY, self.host, configurations
        )
        self._reported = configurations

    def start(self) -> None:
        """The metadata agent listens before the first reconcile starts proxies that use it."""
        if self.metadata is not None:
            self.metadata.agent.start()
        super().start()

    def stop(self) -> None:
        super().stop()
        if self.metadata is not None:
            self.metadata.agent.stop()

    def concerns(self, change: AgentChange) -> bool:
        """A change on a physical network this host's bridges map (any port there is a host
        in some dnsmasq's file), wherever its ports are bound."""
        return not self.mappings.keys().isdisjoint(change.physnets)

    def reconcile(self) -> None:
        networks = self.plugin.get_dhcp_networks(RequestContext(), self.host)
        report = self.dhcp.sync(networks)
        for network_id, why in report.failed.items():
            LOG.warning("DHCP for network %s failed: %s", network_id, why)
        self._served = len(networks) - len(report.failed)
        if self._reported is not None and self.configurations() != self._reported:
            self.report()
