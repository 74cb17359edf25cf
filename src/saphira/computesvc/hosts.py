"""Services and compute nodes gathered from every cell database (cell0 has none).

The compute agent writes these rows; the API reads them (and an admin may
disable or delete a service). They are handed out as frozen records, copies
of the columns the API shows, never as live rows.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import sqlalchemy as sa

from saphira.computesvc.caller import Caller
from saphira.db.api.cells import Cell
from saphira.db.api.models import CellMapping, HostMapping
from saphira.db.cell import instances, models
from saphira.exception import NotFound
from saphira.objects import Instance

__all__ = ["ComputeNode", "HostService", "Node", "Service", "mapped_hosts", "nodes", "services"]

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

R = TypeVar("R", bound="DataclassInstance")


@dataclass(frozen=True)
class Service:
    """A service's row (``nova-compute``, ``nova-scheduler``...) as the API shows it."""

    id: int
    uuid: str
    host: str
    binary: str
    topic: str | None
    disabled: bool
    disabled_reason: str | None
    forced_down: bool
    last_seen_up: dt.datetime | None
    created_at: dt.datetime | None
    updated_at: dt.datetime | None


@dataclass(frozen=True)
class ComputeNode:
    """A compute node's row: its hypervisor and what it has and uses."""

    id: int
    uuid: str
    service_id: int | None
    host: str
    hypervisor_hostname: str
    hypervisor_type: str
    hypervisor_version: int
    host_ip: str | None
    vcpus: int
    memory_mb: int
    local_gb: int
    vcpus_used: int
    memory_mb_used: int
    local_gb_used: int
    cpu_info: str


def _record(kind: type[R], row: object) -> R:
    """A frozen copy of the row's columns that ``kind`` names."""
    names = [f.name for f in dataclasses.fields(kind)]
    return kind(**{name: getattr(row, name) for name in names})


@dataclass
class HostService:
    cell: Cell
    service: Service


@dataclass
class Node:
    cell: Cell
    node: ComputeNode
    service: Service | None
    running_vms: int = 0  # the instances (not deleted) the node holds now


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def mapped_hosts(caller: Caller) -> dict[str, str]:
    """Host -> the uuid of the cell its host mapping names."""
    stmt = sa.select(HostMapping.host, CellMapping.uuid).join(
        CellMapping, HostMapping.cell_id == CellMapping.id
    )
    return {host: cell for host, cell in caller.api.execute(stmt)}


# Built once: an admin's GET /servers/{id} reads its host's services for the host status.
_SERVICES = sa.select(models.Service).filter_by(deleted=0).order_by(models.Service.id)
_SERVICES_ON = _SERVICES.where(models.Service.host == sa.bindparam("host"))


def services(caller: Caller, host: str | None = None) -> list[HostService]:
    """Every cell's services in order (cells in mapping order, then by id); with ``host``,
    only those on it (the same ones in the same order)."""
    found: list[HostService] = []
    for cell in caller.cells():
        with caller.cell(cell) as session:
            rows = (session.scalars(_SERVICES) if host is None
                    else session.scalars(_SERVICES_ON, {"host": host}))  # fmt: skip
            records = [_record(Service, row) for row in rows]
        found.extend(HostService(cell, row) for row in records)
    return found


# How many instances each (host, node) holds: the hypervisor's running_vms, as Nova counts.
_I = models.Instance
_HELD = (
    sa.select(_I.host, _I.node, sa.func.count())
    .where(_I.deleted == 0, _I.host.is_not(None))
    .group_by(_I.host, _I.node)
)


def nodes(caller: Caller) -> list[Node]:
    found: list[Node] = []
    for cell in caller.cells():
        with caller.cell(cell) as session:
            stmt = sa.select(models.ComputeNode).filter_by(deleted=0)
            rows = [_record(ComputeNode, row) for row in session.scalars(stmt)]
            services = session.scalars(sa.select(models.Service).filter_by(deleted=0))
            by_id = {s.id: _record(Service, s) for s in services}
            held = {(h, n): count for h, n, count in session.execute(_HELD)}
        found.extend(
            Node(cell, row, by_id.get(row.service_id or -1),
                 held.get((row.host, row.hypervisor_hostname), 0))
            for row in rows
        )  # fmt: skip
    return sorted(found, key=lambda n: (n.node.hypervisor_hostname, n.node.uuid))


def update_service(caller: Caller, entry: HostService, **values: Any) -> HostService:
    """Write ``values`` (disabled, disabled_reason, forced_down) to the service's row."""
    with caller.cell(entry.cell) as session:
        row = session.get(models.Service, entry.service.id)
        if row is None:
            raise NotFound(f"Service {entry.service.uuid} could not be found.")
        for key, value in values.items():
            setattr(row, key, value)
        session.flush()
        session.refresh(row)
        return HostService(entry.cell, _record(Service, row))


def delete_service(caller: Caller, entry: HostService) -> None:
    """Soft-delete the service's row, as Nova does (``deleted = id``)."""
    with caller.cell(entry.cell) as session:
        session.execute(
            sa.update(models.Service).where(models.Service.id == entry.service.id)
            .values(deleted=models.Service.id, deleted_at=utcnow())
        )  # fmt: skip


def instances_on(caller: Caller, node: Node) -> list[Instance]:
    """The instances on the node's host, in its cell."""
    with caller.cell(node.cell) as session:
        return instances.list_instances(session, instances.InstanceFilters(host=node.node.host))
