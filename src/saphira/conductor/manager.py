"""ConductorManager: the RPC endpoint behind ConductorAPI."""

from __future__ import annotations

import logging

from saphira.clients.placement import PlacementClient
from saphira.conductor.build import BuildTasks
from saphira.conductor.build_reports import BuildReports
from saphira.conductor.databases import Databases
from saphira.conductor.evacuate import EvacuateTasks
from saphira.conductor.records import Records
from saphira.rpc.rpcapi.compute import ComputeAPI
from saphira.rpc.rpcapi.conductor import ConductorAPI
from saphira.rpc.rpcapi.scheduler import SchedulerAPI
from saphira.rpc.server import endpoint_target

LOG = logging.getLogger(__name__)


class ConductorManager(Records, BuildReports, BuildTasks, EvacuateTasks):
    target = endpoint_target(ConductorAPI.RPC_API_VERSION)

    def __init__(
        self,
        dbs: Databases,
        placement: PlacementClient,
        scheduler: SchedulerAPI,
        compute: ComputeAPI,
        *,
        max_attempts: int = 3,
    ) -> None:
        self.dbs = dbs
        self.placement = placement
        self.scheduler = scheduler
        self.compute = compute
        self.max_attempts = max_attempts
