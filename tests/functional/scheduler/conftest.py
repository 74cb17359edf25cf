"""A real placement API (served by cheroot) and a SQLite cell with fake compute nodes."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from oslo_config import cfg

from saphira.clients.placement import PlacementClient
from saphira.db import cells
from saphira.db.api import connect
from saphira.db.api.models import CellMapping, HostMapping
from saphira.db.cell.models import ComputeNode, Service
from saphira.scheduler.manager import SchedulerManager
from tests.functional.identity.server import serve
from tests.functional.placement.conftest import start_placement


@dataclass
class Cloud:
    conf: cfg.ConfigOpts
    placement: PlacementClient
    cell: cells.Cell

    def add_host(
        self,
        name: str,
        *,
        vcpus: int = 8,
        memory_mb: int = 8192,
        disk_gb: int = 100,
        disabled: bool = False,
        down: bool = False,
        mapped: bool = True,
    ) -> str:
        """A compute node as an agent would leave it: rows in the cell, a provider in placement."""
        node_uuid = str(uuid.uuid4())
        now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        seen = now - dt.timedelta(hours=1) if down else now
        with connect.session_for("cell", self.cell.url, self.conf) as session:
            service = Service(
                uuid=str(uuid.uuid4()),
                host=name,
                binary=cells.COMPUTE_BINARY,
                topic="compute",
                disabled=disabled,
                disabled_reason="maintenance" if disabled else None,
                last_seen_up=seen,
            )
            session.add(service)
            session.flush()
            session.add(
                ComputeNode(
                    uuid=node_uuid,
                    service_id=service.id,
                    host=name,
                    hypervisor_hostname=name,
                    hypervisor_type="fake",
                    vcpus=vcpus,
                    memory_mb=memory_mb,
                    local_gb=disk_gb,
                    mapped=int(mapped),
                )
            )
            session.commit()
        if mapped:
            with connect.session_for("api", connect.api_url(self.conf), self.conf) as api:
                cell_id = api.query(CellMapping.id).filter_by(uuid=self.cell.uuid).scalar()
                api.add(HostMapping(cell_id=cell_id, host=name))
                api.commit()
        self.placement.ensure_provider(name, node_uuid)
        self.placement.set_inventory(
            node_uuid,
            {
                "VCPU": {"total": vcpus, "allocation_ratio": 1.0},
                "MEMORY_MB": {"total": memory_mb},
                "DISK_GB": {"total": disk_gb},
            },
        )
        return node_uuid

    def scheduler(self) -> SchedulerManager:
        return SchedulerManager(self.conf, self.placement)


@pytest.fixture
def cloud(tmp_path: Path) -> Iterator[Cloud]:
    service = start_placement(tmp_path)
    conf = service.identity.conf
    conf.set_override("transport_url", f"inproc:///sched-{uuid.uuid4().hex}")
    conf.set_override("host_state_ttl", 0.0, group="scheduler")
    cells.api_db_sync(conf)
    cells.map_cell0(conf)
    cells.db_sync(conf)
    cell, _ = cells.create_cell(conf, name="cell1", database_connection=cells.cell_url(conf))
    with serve(service.app) as url:
        yield Cloud(conf, PlacementClient(url, lambda: service.token), cell)
    service.db.engine.dispose()
    service.identity.backend.engine.dispose()
