"""Services and compute nodes gathered from every cell database (cell0 has none).

The compute agent writes these rows; the API only reads them, and derives a
service's up/down from its last heartbeat against [DEFAULT] service_down_time.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import sqlalchemy as sa

from saphira.api.compute.app import Call
from saphira.api.compute.state import CellRef
from saphira.db.api.models import CellMapping, HostMapping
from saphira.db.cell.models import ComputeNode, Service

COMPUTE_BINARY = "nova-compute"
# Said in disabled_reason: tempest's schemas allow no field of our own, and an
# unmapped host is one the scheduler cannot use, whatever its status says.
UNMAPPED = "not mapped to a cell: run saphira-manage cell_v2 discover_hosts"


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


def is_up(call: Call, service: Service) -> bool:
    if service.forced_down:
        return False
    seen = service.last_seen_up or service.updated_at or service.created_at
    if seen is None:
        return False
    return (utcnow() - seen).total_seconds() <= int(call.state.conf.service_down_time)


def zone(call: Call, service: Service) -> str:
    conf = call.state.conf
    if service.binary == COMPUTE_BINARY:
        return str(conf.default_availability_zone)
    return str(conf.internal_service_availability_zone)


def mapped_hosts(call: Call) -> dict[str, str]:
    """Host -> the uuid of the cell its host mapping names."""
    stmt = sa.select(HostMapping.host, CellMapping.uuid).join(
        CellMapping, HostMapping.cell_id == CellMapping.id
    )
    return {host: cell for host, cell in call.session.execute(stmt)}


def disabled_reason(service: Service, cell: CellRef, mapped: dict[str, str]) -> str | None:
    """The row's reason, plus UNMAPPED for a compute host the scheduler cannot see
    (no host mapping, or one naming another cell): never silently ignored."""
    reason = service.disabled_reason
    if service.binary != COMPUTE_BINARY or mapped.get(service.host) == cell.uuid:
        return reason
    return f"{reason}; {UNMAPPED}" if reason else UNMAPPED


def services(call: Call) -> list[HostService]:
    found: list[HostService] = []
    for cell in call.state.cells(call.session):
        with call.state.cell_session(cell) as session:
            stmt = sa.select(Service).filter_by(deleted=0).order_by(Service.id)
            rows = list(session.scalars(stmt))
            session.expunge_all()
        found.extend(HostService(cell, row) for row in rows)
    return found


def nodes(call: Call) -> list[Node]:
    found: list[Node] = []
    for cell in call.state.cells(call.session):
        with call.state.cell_session(cell) as session:
            rows = list(session.scalars(sa.select(ComputeNode).filter_by(deleted=0)))
            by_id = {s.id: s for s in session.scalars(sa.select(Service).filter_by(deleted=0))}
            session.expunge_all()
        found.extend(Node(cell, row, by_id.get(row.service_id or -1)) for row in rows)
    return sorted(found, key=lambda n: (n.node.hypervisor_hostname, n.node.uuid))
