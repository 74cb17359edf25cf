"""Services and compute nodes gathered from every cell database (cell0 has none).

The compute agent writes these rows; the API reads them (and an admin may
disable or delete a service). Rows are handed out detached from their session.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from saphira.computesvc.caller import Caller
from saphira.db.api.models import CellMapping, HostMapping
from saphira.db.cell import instances
from saphira.db.cell.models import ComputeNode, Service
from saphira.db.directory import CellRef
from saphira.exception import NotFound
from saphira.objects import Instance

__all__ = ["ComputeNode", "HostService", "Node", "Service", "mapped_hosts", "nodes", "services"]


@dataclass
class HostService:
    cell: CellRef
    service: Service


@dataclass
class Node:
    cell: CellRef
    node: ComputeNode
    service: Service | None


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def mapped_hosts(caller: Caller) -> dict[str, str]:
    """Host -> the uuid of the cell its host mapping names."""
    stmt = sa.select(HostMapping.host, CellMapping.uuid).join(
        CellMapping, HostMapping.cell_id == CellMapping.id
    )
    return {host: cell for host, cell in caller.api.execute(stmt)}


def services(caller: Caller) -> list[HostService]:
    found: list[HostService] = []
    for cell in caller.cells():
        with caller.cell(cell) as session:
            stmt = sa.select(Service).filter_by(deleted=0).order_by(Service.id)
            rows = list(session.scalars(stmt))
            session.expunge_all()
        found.extend(HostService(cell, row) for row in rows)
    return found


def nodes(caller: Caller) -> list[Node]:
    found: list[Node] = []
    for cell in caller.cells():
        with caller.cell(cell) as session:
            rows = list(session.scalars(sa.select(ComputeNode).filter_by(deleted=0)))
            by_id = {s.id: s for s in session.scalars(sa.select(Service).filter_by(deleted=0))}
            session.expunge_all()
        found.extend(Node(cell, row, by_id.get(row.service_id or -1)) for row in rows)
    return sorted(found, key=lambda n: (n.node.hypervisor_hostname, n.node.uuid))


def update_service(caller: Caller, entry: HostService, **values: Any) -> HostService:
    """Write ``values`` (disabled, disabled_reason, forced_down) to the service's row."""
    with caller.cell(entry.cell) as session:
        row = session.get(Service, entry.service.id)
        if row is None:
            raise NotFound(f"Service {entry.service.uuid} could not be found.")
        for key, value in values.items():
            setattr(row, key, value)
        session.flush()
        session.refresh(row)
        session.expunge(row)
    return HostService(entry.cell, row)


def delete_service(caller: Caller, entry: HostService) -> None:
    """Soft-delete the service's row, as Nova does (``deleted = id``)."""
    with caller.cell(entry.cell) as session:
        session.execute(
            sa.update(Service).where(Service.id == entry.service.id)
            .values(deleted=Service.id, deleted_at=utcnow())
        )  # fmt: skip


def instances_on(caller: Caller, node: Node) -> list[Instance]:
    """The instances on the node's host, in its cell."""
    with caller.cell(node.cell) as session:
        return instances.list_instances(session, instances.InstanceFilters(host=node.node.host))
