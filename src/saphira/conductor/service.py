"""A running conductor: the RPC server on topic ``conductor`` and the
watchdog that fails builds stuck on hosts that went down."""

from __future__ import annotations

from typing import Any

from oslo_config import cfg

from saphira.clients.placement import PlacementClient
from saphira.common.periodic import Periodic
from saphira.conductor import watchdog
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
        self._server: rpc_server.Server | None = None
        self._timers: list[Periodic] = []

    def check_stuck_builds(self) -> list[str]:
        return watchdog.fail_builds_on_down_hosts(
            self.dbs, self.placement, self.conf.service_down_time
        )

    def heartbeat(self) -> None:
        self.manager.service_heartbeat(RequestContext(), self.conf.host, BINARY, "conductor")

    def start(self) -> None:
        self._server = rpc_server.start_server(
            self.conf, ConductorAPI.TOPIC, self.conf.host, [self.manager],
            transport=self._transport,
        )  # fmt: skip
        interval = self.conf.report_interval
        self._timers = [
            Periodic("conductor-heartbeat", interval, self.heartbeat),
            Periodic("conductor-watchdog", interval, self.check_stuck_builds),
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
