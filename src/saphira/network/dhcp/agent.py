"""The DHCP agent's reconcile: the host's dnsmasq servers made to match the wanted networks."""

from __future__ import annotations

import dataclasses
import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from saphira.exception import SaphiraError
from saphira.network.dhcp import config, process
from saphira.network.dhcp.errors import DhcpError
from saphira.network.dhcp.files import (
    NetworkFiles,
    check_reachable,
    ensure_dir,
    served_networks,
    write_if_changed,
)
from saphira.network.dhcp.interface import InterfaceDriver, Plug, interface_driver
from saphira.network.metadata import proxies
from saphira.objects.network import DhcpNetwork
from saphira.privsep import dnsmasq

LOG = logging.getLogger(__name__)
_T = TypeVar("_T")


@dataclasses.dataclass(frozen=True)
class Wire:
    """Where a network's DHCP port joins the wire: decided by the L2 side."""

    bridge: str
    vlan: int | None = None


Wiring = Callable[[DhcpNetwork], Wire]


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except FileNotFoundError:
        return ""


def mapped_bridges(bridge_mappings: dict[str, str]) -> Wiring:
    """The OVS layout: one bridge per physical network, VLANs as access tags on it."""

    def wire(network: DhcpNetwork) -> Wire:
        segment = network.segment
        bridge = bridge_mappings.get(segment.physical_network)
        if bridge is None:
            raise DhcpError(detail=f"no bridge mapped for physnet {segment.physical_network}")
        return Wire(bridge, segment.segmentation_id if segment.network_type == "vlan" else None)

    return wire


@dataclasses.dataclass
class SyncReport:
    """Network ids by what ``sync`` did to their dnsmasq."""

    started: list[str] = dataclasses.field(default_factory=list)
    restarted: list[str] = dataclasses.field(default_factory=list)
    reloaded: list[str] = dataclasses.field(default_factory=list)
    unchanged: list[str] = dataclasses.field(default_factory=list)
    stopped: list[str] = dataclasses.field(default_factory=list)
    proxied: list[str] = dataclasses.field(default_factory=list)  # metadata proxy (re)started
    failed: dict[str, str] = dataclasses.field(default_factory=dict)


class DhcpAgent:
    """Holds no state of its own between syncs: the host and ``state_dir`` are the state.

    That is what lets a new agent process adopt the servers an old one left.
    With ``metadata``, each network also gets a metadata proxy in its
    namespace (``saphira.network.metadata.proxies``), and the DHCP device
    carries 169.254.169.254 for it; without, any proxy left is stopped.
    The bridge for each network comes from ``wiring`` because the L2 side,
    not this agent, decides bridges (and, on a Linux bridge, one per VLAN).
    """

    def __init__(
        self,
        state_dir: Path,
        wiring: Wiring,
        *,
        interface: str | InterfaceDriver = "linuxbridge",
        lease_seconds: int = config.LEASE_SECONDS,
        metadata: proxies.MetadataProxies | None = None,
    ) -> None:
        self.root = state_dir / "dhcp"
        check_reachable(state_dir)
        self.wiring = wiring
        self.interface = interface_driver(interface) if isinstance(interface, str) else interface
        self.lease_seconds = lease_seconds
        self.metadata = metadata

    def sync(self, networks: list[DhcpNetwork]) -> SyncReport:
        """Idempotent; one network's failure is reported and does not stop the others."""
        wanted = {n.network_id: n for n in networks if config.dhcp_subnets(n)}
        report = SyncReport()
        ensure_dir(self.root)
        for network_id, network in sorted(wanted.items()):
            self._guarded(report, network_id, self._serve, network)
        for network_id in served_networks(self.root):
            if network_id not in wanted:
                self._guarded(report, network_id, self._retire, network_id)
        return report

    def _guarded(
        self,
        report: SyncReport,
        network_id: str,
        work: Callable[[_T, SyncReport], None],
        subject: _T,
    ) -> None:
        try:
            work(subject, report)
        except (SaphiraError, OSError) as error:
            LOG.error("DHCP for network %s: %s", network_id, error)
            report.failed[network_id] = str(error)

    def _serve(self, network: DhcpNetwork, report: SyncReport) -> None:
        files = NetworkFiles.under(self.root, network.network_id)
        namespace = config.namespace_name(network.network_id)
        ensure_dir(files.directory)
        rewired = self.interface.plug(self._plug(network))
        gone = config.released_leases(_read(files.hosts), config.hosts_file(network))
        changed = write_if_changed(files.hosts, config.hosts_file(network))
        changed = write_if_changed(files.opts, config.opts_file(network)) or changed
        argv = config.dnsmasq_argv(network, files, self.lease_seconds)
        pid = process.running_pid(files.pid)
        if pid is None:
            process.start(argv, namespace=namespace, pidfile=files.pid)
            report.started.append(network.network_id)
        elif rewired or process.cmdline(pid) != argv:
            process.stop(pid, files.pid)
            process.start(argv, namespace=namespace, pidfile=files.pid)
            report.restarted.append(network.network_id)
        elif changed:
            process.reload(pid)
            self._release(network, gone)
            report.reloaded.append(network.network_id)
        else:
            report.unchanged.append(network.network_id)
        self._proxy(network, files, rewired, report)

    def _proxy(
        self, network: DhcpNetwork, files: NetworkFiles, rewired: bool, report: SyncReport
    ) -> None:
        """A re-made device has another index: an IPv6 listener bound to the old one is stale."""
        if self.metadata is None:
            proxies.stop(files.directory)
        elif self.metadata.ensure(network, files.directory, restart=rewired):
            report.proxied.append(network.network_id)

    def _release(self, network: DhcpNetwork, gone: list[tuple[str, str]]) -> None:
        """Leases of removed hosts go at once, as Neutron's agent does: otherwise the
        next port given the same address gets no answer until the old lease ends."""
        namespace = config.namespace_name(network.network_id)
        device = config.device_name(network.dhcp_port.port_id)
        for mac, ip in gone:
            try:
                dnsmasq.release(namespace, device, ip, mac)
            except SaphiraError as error:
                LOG.warning("lease of %s (%s) not released: %s", ip, mac, error)

    def _plug(self, network: DhcpNetwork) -> Plug:
        wire = self.wiring(network)
        port = network.dhcp_port
        metadata_addresses = proxies.device_addresses(network) if self.metadata else []
        return Plug(
            namespace=config.namespace_name(network.network_id),
            device=config.device_name(port.port_id),
            port_id=port.port_id,
            mac=port.mac_address,
            mtu=network.segment.mtu,
            addresses=tuple(sorted(config.port_addresses(network) + metadata_addresses)),
            bridge=wire.bridge,
            vlan=wire.vlan,
        )

    def _retire(self, network_id: str, report: SyncReport) -> None:
        """Stop dnsmasq, unplug, and remove the files (leases too: the network is gone)."""
        files = NetworkFiles.under(self.root, network_id)
        pid = process.running_pid(files.pid)
        if pid is not None:
            process.stop(pid, files.pid)
        proxies.stop(files.directory)
        self.interface.unplug(config.namespace_name(network_id))
        shutil.rmtree(files.directory)
        report.stopped.append(network_id)
        LOG.info("DHCP for network %s stopped and cleaned", network_id)
