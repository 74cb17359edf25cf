"""A whole control plane in process: placement (served), scheduler, conductor
and fake compute hosts on a private in-process bus, cells on SQLite."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from oslo_config import cfg

import saphira.conf
from saphira.compute.service import ComputeService
from saphira.conductor.service import ConductorService
from saphira.context import RequestContext
from saphira.db import cells
from saphira.db.api import build_requests
from saphira.db.api.models import InstanceMapping
from saphira.db.api.models import RequestSpec as SpecRow
from saphira.db.cell import instances
from saphira.objects import Flavor, Instance, RequestSpec
from saphira.placement.client import PlacementClient
from saphira.rpc.rpcapi.conductor import ConductorAPI
from saphira.rpc.transport import get_rpc_transport
from saphira.scheduler import service as scheduler_service
from saphira.virt.fake import FakeDriver, FaultInjector
from tests.functional.identity.server import serve
from tests.functional.placement.conftest import start_placement

FLAVOR = Flavor("1", "m1.tiny", vcpus=1, memory_mb=512, root_gb=1)


@dataclass
class Plane:
    conf: cfg.ConfigOpts
    transport: Any
    placement: PlacementClient
    conductor: ConductorService
    faults: FaultInjector
    computes: dict[str, ComputeService] = field(default_factory=dict)

    def add_host(self, host: str) -> ComputeService:
        driver = FakeDriver.fleet([host], self.faults)[host]
        service = ComputeService(self.conf, host, [driver], self.transport, self.placement)
        service.start()
        self.computes[host] = service
        cells.discover_hosts(self.conf)
        return service

    def boot(self, name: str = "vm") -> str:
        """What the servers API does: build request, mapping, spec, then the cast."""
        ctxt = RequestContext(project_id="p1", user_id="u1")
        instance = Instance(str(uuid.uuid4()), "p1", "u1", FLAVOR, display_name=name,
                            image_ref="img")  # fmt: skip
        spec = RequestSpec(instance.uuid, "p1", "u1", FLAVOR, image_ref="img")
        with self.conductor.dbs.api() as api:
            api.add(InstanceMapping(instance_uuid=instance.uuid, project_id="p1", user_id="u1"))
            api.add(SpecRow(instance_uuid=instance.uuid, spec=json.dumps(spec.to_primitive()),
                            vcpus=1, memory_mb=512))  # fmt: skip
            build_requests.create(api, instance)
        ConductorAPI(self.transport).schedule_and_build_instances(ctxt, [instance], [spec], {})
        return instance.uuid

    def instance(self, uuid_: str) -> Instance:
        with self.conductor.dbs.instance_cell(uuid_) as session:
            return instances.get(session, uuid_, read_deleted=True)

    def wait(self, uuid_: str, done: Callable[[Instance], bool], timeout: float = 20) -> Instance:
        deadline = time.monotonic() + timeout
        while True:
            try:
                found = self.instance(uuid_)
                if done(found):
                    return found
            except Exception:
                found = None
            if time.monotonic() > deadline:
                raise AssertionError(f"instance {uuid_} never got there: {found}")
            time.sleep(0.02)


@pytest.fixture
def plane(tmp_path: Path) -> Iterator[Plane]:
    placement = start_placement(tmp_path / "placement")
    conf = saphira.conf.load(
        overrides={
            "DEFAULT": {
                "state_path": str(tmp_path / "state"),
                "transport_url": f"inproc:///{uuid.uuid4().hex}",
                "host": "controller",
                "sync_power_state_interval": -1,
            },
            "scheduler": {"host_state_ttl": 0.0},
        }
    )
    cells.api_db_sync(conf)
    cells.map_cell0(conf)
    cells.create_cell(conf, name="cell1")
    cells.db_sync(conf)
    with serve(placement.app) as url:
        client = PlacementClient(url, lambda: placement.token)
        transport = get_rpc_transport(conf)
        scheduler = scheduler_service.start(conf, client, transport=transport)
        conductor = ConductorService(conf, transport, client)
        conductor.start()
        plane = Plane(conf, transport, client, conductor, FaultInjector())
        try:
            yield plane
        finally:
            for compute in plane.computes.values():
                compute.stop()
            conductor.stop()
            scheduler.stop()
            transport.cleanup()
