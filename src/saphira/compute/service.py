"""A running compute agent: its RPC server on topic ``compute`` (server =
host), heartbeats, inventory reports and power-state reconcile on timers,
and driver lifecycle events that wake the reconcile."""

from __future__ import annotations

import functools
import logging
from typing import Any

from oslo_config import cfg

from saphira import exception
from saphira.clients.image import ImageClient
from saphira.clients.network import NetworkClient
from saphira.clients.placement import PlacementClient
from saphira.common.periodic import Periodic
from saphira.compute import evacuate, reconcile, recover, resource_tracker
from saphira.compute.build import VifPlugging
from saphira.compute.manager import ComputeManager
from saphira.compute.network import Networking
from saphira.context import RequestContext
from saphira.rpc import server as rpc_server
from saphira.rpc.rpcapi.compute import ComputeAPI
from saphira.rpc.rpcapi.conductor import ConductorAPI
from saphira.virt.driver import ComputeDriver
from saphira.virt.types import LifecycleEvent

LOG = logging.getLogger(__name__)
BINARY = "nova-compute"


class ComputeService:
    def __init__(
        self,
        conf: cfg.ConfigOpts,
        host: str,
        drivers: list[ComputeDriver],
        transport: Any,
        placement: PlacementClient,
        images: ImageClient | None = None,
        network: NetworkClient | None = None,
    ) -> None:
        """Without ``network`` (no network service) guests get no NICs."""
        self.conf, self.host, self.drivers = conf, host, drivers
        self.conductor = ConductorAPI(transport)
        ports = (
            None if network is None else Networking(network, host, conf.default_availability_zone)
        )
        plugging = VifPlugging(conf.vif_plugging_timeout, conf.vif_plugging_is_fatal)
        self.manager = ComputeManager(
            host, drivers, self.conductor, ComputeAPI(transport), placement, images,
            ports, plugging,
        )  # fmt: skip
        self.placement = placement
        self._transport = transport
        self._server: rpc_server.Server | None = None
        self._timers: list[Periodic] = []

    def heartbeat(self) -> None:
        """Report up only while every hypervisor answers (a dead libvirt = down)."""
        dead = [driver.node for driver in self.drivers if not driver.healthy()]
        if dead:
            LOG.warning("hypervisor unreachable on %s: not reporting up", ", ".join(dead))
            return
        self.conductor.service_heartbeat(RequestContext(), self.host, BINARY, "compute")

    def first_heartbeat(self) -> int:
        """Nova's wait_until_ready: an agent that starts before its conductor (or
        while it restarts) waits for it, one call timeout at a time, rather than
        exiting; how many calls went unanswered."""
        missed = 0
        while True:
            try:
                self.heartbeat()
                return missed
            except exception.MessagingTimeout as error:
                missed += 1
                LOG.warning("%s Is saphira-conductor running? Waiting for it.", error.message)

    def first_inventory(self) -> bool:
        """The nodes and their inventory, reported now if identity and placement answer;
        if not, the agent starts anyway (as Nova's does) and the periodic report
        retries: a cloud whose API restarts is no reason for its agents to exit."""
        try:
            self.update_resources()
        except exception.ServiceUnavailable as error:
            LOG.warning("inventory not reported yet (%s); the next report retries", error.message)
            return False
        return True

    def manage_image_cache(self) -> None:
        for driver in self.drivers:
            driver.manage_image_cache()

    def update_resources(self) -> None:
        for driver in self.drivers:
            resource_tracker.update_node(self.conf, driver, self.conductor, self.placement)

    def start(self) -> None:
        """Register (service + nodes) before consuming, so the host can be discovered."""
        for driver in self.drivers:
            driver.init_host()
        self.first_heartbeat()
        self.first_inventory()
        try:  # guests evacuated while this host was down go, before anything starts them
            evacuate.destroy_evacuated(self.manager)
        except Exception:
            LOG.exception("could not look for guests evacuated from %s", self.host)
        try:  # what a killed agent left mid-task moves on, before new requests come
            recover.recover_interrupted(self.manager)
        except Exception:
            LOG.exception("could not look for tasks interrupted on %s", self.host)
        self._server = rpc_server.start_server(
            self.conf, ComputeAPI.TOPIC, self.host, [self.manager], transport=self._transport
        )
        sync = self.conf.sync_power_state_interval
        self._timers = [
            Periodic(f"heartbeat-{self.host}", self.conf.report_interval, self.heartbeat),
            Periodic(
                f"resources-{self.host}", self.conf.update_resources_interval,
                self.update_resources,
            ),
        ]  # fmt: skip
        cache_interval = self.conf.image_cache.manager_interval
        if cache_interval > 0:
            self._timers.append(
                Periodic(f"image-cache-{self.host}", cache_interval, self.manage_image_cache)
            )
        if sync > 0:
            reconciler = Periodic(
                f"reconcile-{self.host}", sync, lambda: reconcile.reconcile_once(self.manager)
            )
            self._timers.append(reconciler)
            for driver in self.drivers:
                driver.register_event_listener(functools.partial(_wake, reconciler))
        for timer in self._timers:
            timer.start()

    def stop(self) -> None:
        for timer in self._timers:
            timer.stop()
        for driver in self.drivers:
            driver.register_event_listener(None)
        if self._server is not None:
            rpc_server.stop_all([self._server])
            self._server = None
        for driver in self.drivers:
            driver.cleanup_host()


def _wake(timer: Periodic, _event: LifecycleEvent) -> None:
    timer.wake.set()
