"""A running conductor: the RPC server on topic ``conductor``, its heartbeat
(through the bus, so a conductor cut off from it is down) and the watchdog
that fails builds stuck on hosts that went down while the bus worked, and the
one that fails builds no conductor ever placed (``lost_builds``)."""

from __future__ import annotations

from typing import Any

from oslo_config import cfg

from saphira.clients.placement import PlacementClient
from saphira.common.periodic import Periodic
from saphira.conductor import lost_builds, watchdog
from saphira.conductor.buswatch import BusWatch
from saphira.conductor.databases import databases
from saphira.conductor.manager import ConductorManager
from saphira.context import RequestContext
from saphira.rpc import server as rpc_server
from saphira.rpc.rpcapi.compute import ComputeAPI
from saphira.rpc.rpcapi.conductor import ConductorAPI
from saphira.rpc.rpcapi.scheduler import SchedulerAPI

BINARY = "nova-conductor"


class ConductorService:
    def __init__(self, conf: cfg.ConfigOpts, transport: Any, placement: PlacementClient) -> None:
        self.conf = conf
        self.dbs = databases(conf)
        self.manager = ConductorManager(
            self.dbs, placement, SchedulerAPI(transport), ComputeAPI(transport),
            max_attempts=conf.scheduler.max_attempts,
        )  # fmt: skip
        self.placement = placement
        self._transport = transport
        rabbit = conf.oslo_messaging_rabbit
        reconnect = rabbit.rabbit_interval_max + rabbit.kombu_reconnect_delay
        self._bus = BusWatch(conf.report_interval, reconnect)
        self._self = ConductorAPI(transport)
        self._server: rpc_server.Server | None = None
        self._timers: list[Periodic] = []

    def check_stuck_builds(self) -> list[str]:
        """Fail builds on hosts down for service_down_time, if the bus carried beats all along."""
        down_time = self.conf.service_down_time
        if not self._bus.steady_for(down_time):
            return []  # a broker outage silences every host: not a verdict on them
        return watchdog.fail_builds_on_down_hosts(self.dbs, self.placement, down_time)

    def check_lost_builds(self) -> list[str]:
        """Fail builds no conductor placed within lost_build_timeout (``lost_builds``)."""
        return lost_builds.bury_lost_builds(self.manager, self.conf.lost_build_timeout)

    def heartbeat(self) -> None:
        self._self.service_heartbeat(RequestContext(), self.conf.host, BINARY, "conductor")
        self._bus.beat()

    def start(self) -> None:
        self._server = rpc_server.start_server(
            self.conf, ConductorAPI.TOPIC, self.conf.host, [self.manager],
            transport=self._transport,
        )  # fmt: skip
        interval = self.conf.report_interval
        self._timers = [
            Periodic("conductor-heartbeat", interval, self.heartbeat),
            Periodic("conductor-watchdog", interval, self.check_stuck_builds),
            Periodic("conductor-lost-builds", interval, self.check_lost_builds),
        ]
        for timer in self._timers:
            timer.start()

    def stop(self) -> None:
        for timer in self._timers:
            timer.stop()
        if self._server is not None:
            rpc_server.stop_all([self._server])
            self._server = None
        self.dbs.dispose()
