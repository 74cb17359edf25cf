"""The compute control plane's agents, assembled from the configuration.

``saphira up`` runs all of them in its own process on one transport (the
in-process bus by default); the per-service mains in ``saphira.cmd`` run one
each over ``[DEFAULT] transport_url``. Both build them here, so a process
deployment and the all-in-one differ only in where the pieces run.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from oslo_config import cfg

from saphira.clients.endpoints import image_locator, service_locator
from saphira.clients.identity import PasswordToken
from saphira.clients.image import ImageClient
from saphira.clients.network import NetworkClient
from saphira.clients.placement import PlacementClient
from saphira.compute.service import ComputeService
from saphira.conductor.service import ConductorService
from saphira.db import cells
from saphira.rpc.transport import get_rpc_transport
from saphira.scheduler import service as scheduler_service
from saphira.service.netplane import NetworkPlane
from saphira.virt.driver import ComputeDriver
from saphira.virt.fake import FakeDriver, FaultInjector
from saphira.virt.loader import load_drivers

LOG = logging.getLogger(__name__)


def placement_client(conf: cfg.ConfigOpts) -> PlacementClient:
    """Placement as the [placement] service user sees it (as Nova's agents do)."""
    token = PasswordToken(conf.placement)
    return PlacementClient(service_locator(conf, "placement", "placement", token), token)


def image_client(conf: cfg.ConfigOpts) -> ImageClient:
    """Image downloads and snapshot uploads as the compute service user of
    [keystone_authtoken]."""
    token = PasswordToken(conf.keystone_authtoken)
    return ImageClient(image_locator(conf, token), token)


def compute_hosts(conf: cfg.ConfigOpts) -> dict[str, list[ComputeDriver]]:
    """Host name -> its drivers: [fake_driver] hosts if set, else [DEFAULT] host alone.

    Simulated hosts share one fault injector, so a test or an operator can
    fail spawns on a chosen subset of them.
    """
    hosts = list(conf.fake_driver.hosts)
    if not hosts:
        return {conf.host: load_drivers(conf)}
    group = conf.fake_driver
    faults = FaultInjector.from_conf(conf)
    resources = (group.vcpus, group.memory_mb, group.local_gb)
    return {
        host: [FakeDriver(host, host, resources=resources, faults=faults, delay=group.delay,
                          console_lines=group.console_lines)]
        for host in hosts
    }  # fmt: skip


def start_compute(
    conf: cfg.ConfigOpts, host: str, drivers: list[ComputeDriver], transport: Any
) -> ComputeService:
    token = PasswordToken(conf.neutron)
    network = NetworkClient(service_locator(conf, "neutron", "network", token), token)
    service = ComputeService(
        conf, host, drivers, transport, placement_client(conf), images=image_client(conf),
        network=network,
    )  # fmt: skip
    service.start()
    LOG.info("compute host %s: running (%d node(s))", host, len(drivers))
    return service


def start_conductor(conf: cfg.ConfigOpts, transport: Any) -> ConductorService:
    service = ConductorService(conf, transport, placement_client(conf))
    service.start()
    LOG.info("conductor: running")
    return service


def start_scheduler(conf: cfg.ConfigOpts, transport: Any) -> scheduler_service.SchedulerService:
    service = scheduler_service.start(conf, placement_client(conf), transport=transport)
    LOG.info("scheduler: running")
    return service


def map_new_hosts(conf: cfg.ConfigOpts) -> int:
    """``cell_v2 discover_hosts``: map the compute hosts that registered so far."""
    found = cells.discover_hosts(conf, status=LOG.debug)
    for info in found:
        LOG.info("mapped compute host %s to cell %s", info.host, info.cell_uuid)
    return len(found)


ALL = frozenset({"conductor", "compute", "scheduler"})
NETWORK = "network"  # the network service's endpoint for its agents
NETWORK_AGENTS = "network-agents"  # this host's L2 and DHCP agents


@dataclass
class ControlPlane:
    """Some or all of scheduler, conductor and compute hosts, on one transport.

    ``saphira up`` runs all three (and maps the hosts itself); each
    per-service process runs one. A compute-only process never maps hosts:
    that reads the databases, and compute hosts have no database access.
    """

    conf: cfg.ConfigOpts
    parts: frozenset[str] = ALL
    transport: Any = None
    scheduler: scheduler_service.SchedulerService | None = None
    conductor: ConductorService | None = None
    computes: dict[str, ComputeService] = field(default_factory=dict)
    network: NetworkPlane | None = None

    def start(self) -> None:
        """Conductor, compute hosts, discovery, then the scheduler.

        The hosts register through the conductor and are mapped before the
        scheduler reads its first host states, so the first request after
        "ready" finds them (a scheduler started earlier would answer from a
        cache that predates them until its TTL ran out). The APIs must
        already listen: the agents fetch service tokens from identity and
        report inventories to placement as they start.
        """
        try:
            self.transport = get_rpc_transport(self.conf)
            if "conductor" in self.parts:
                self.conductor = start_conductor(self.conf, self.transport)
            if "compute" in self.parts:
                for host, drivers in compute_hosts(self.conf).items():
                    self.computes[host] = start_compute(self.conf, host, drivers, self.transport)
            if {NETWORK, NETWORK_AGENTS} & self.parts:
                self.network = NetworkPlane(self.conf, self.transport)
                if NETWORK in self.parts:
                    self.network.start_service()
                if NETWORK_AGENTS in self.parts:
                    self.network.start_agents()
            if self.parts >= ALL:
                map_new_hosts(self.conf)
            if "scheduler" in self.parts:
                self.scheduler = start_scheduler(self.conf, self.transport)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Agents first (they call the conductor), then conductor, scheduler, bus."""
        for host, compute in reversed(list(self.computes.items())):
            _quietly(f"compute host {host}", compute.stop)
        self.computes.clear()
        if self.network is not None:
            _quietly("network agents and endpoint", self.network.stop)
            self.network = None
        if self.conductor is not None:
            _quietly("conductor", self.conductor.stop)
            self.conductor = None
        if self.scheduler is not None:
            _quietly("scheduler", self.scheduler.stop)
            self.scheduler = None
        if self.transport is not None:
            _quietly("message bus", self.transport.cleanup)
            self.transport = None


def _quietly(what: str, stop: Any) -> None:
    """One part failing to stop must not leave the others running."""
    try:
        stop()
    except Exception:
        LOG.exception("%s: stop failed", what)
