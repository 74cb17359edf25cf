"""Host discovery: give every compute host of every cell a host mapping.

A compute agent registers its service and compute node in its cell's
database; only a host mapping in the API database lets the scheduler place
instances there. Discovery writes the mapping first and marks the node
``mapped`` second, so an interrupted run simply finishes on the next one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import sqlalchemy as sa
from oslo_config import cfg
from sqlalchemy import exc
from sqlalchemy.orm import Session

from saphira.db.api import connect
from saphira.db.api.cells import Cell, _get
from saphira.db.api.models import CellMapping, HostMapping
from saphira.db.cell.models import ComputeNode, Service
from saphira.exception import Conflict

# The binary name compute agents register under, as the os-services API shows it.
COMPUTE_BINARY = "nova-compute"

Status = Callable[[str], None]


class HostMappingExists(Conflict):
    """Two discoveries raced for the same host (nova-manage exits 2)."""


@dataclasses.dataclass(frozen=True)
class HostInfo:
    host: str
    cell_uuid: str
    cell_name: str


def _quiet(_message: str) -> None:
    pass


def _cells_to_search(session: Session, cell_uuid: str | None, status: Status) -> list[Cell]:
    if cell_uuid:
        return [Cell.of(_get(session, cell_uuid))]
    cells = [
        Cell.of(row) for row in session.scalars(sa.select(CellMapping).order_by(CellMapping.id))
    ]
    status(f"Found {len(cells)} cell mappings.")
    return cells


def _map_host(api: Session, cell: Cell, host: str) -> HostInfo | None:
    """Create the host's mapping unless it has one; None when it already had."""
    if api.scalars(sa.select(HostMapping.id).filter_by(host=host)).first() is not None:
        return None
    cell_row = _get(api, cell.uuid)
    api.add(HostMapping(cell_id=cell_row.id, host=host))
    try:
        api.flush()
    except exc.IntegrityError:
        raise HostMappingExists(
            f"Duplicate host mapping was encountered for host {host!r}. Discovery "
            "must not run in parallel with itself."
        ) from None
    return HostInfo(host, cell.uuid, cell.name)


def _by_node(api: Session, cells: Session, cell: Cell, status: Status) -> list[HostInfo]:
    found: list[HostInfo] = []
    unmapped = sa.select(ComputeNode).where(ComputeNode.mapped < 1, ComputeNode.deleted == 0)
    for node in cells.scalars(unmapped.order_by(ComputeNode.id)):
        status(f"Checking host mapping for compute host '{node.host}': {node.uuid}")
        if _map_host(api, cell, node.host) is None:
            node.mapped = 1
            continue
        status(f"Creating host mapping for compute host '{node.host}': {node.uuid}")
        found.append(HostInfo(node.host, cell.uuid, cell.name))
        node.mapped = 1
    return found


def _by_service(api: Session, cells: Session, cell: Cell, status: Status) -> list[HostInfo]:
    found: list[HostInfo] = []
    query = sa.select(Service).where(Service.binary == COMPUTE_BINARY, Service.deleted == 0)
    for service in cells.scalars(query.order_by(Service.id)):
        info = _map_host(api, cell, service.host)
        if info is not None:
            status(f"Creating host mapping for service {service.host}")
            found.append(info)
    return found


def discover_hosts(
    conf: cfg.ConfigOpts,
    cell_uuid: str | None = None,
    by_service: bool = False,
    status: Status | None = None,
) -> list[HostInfo]:
    """Map every unmapped compute host; returns the mappings created.

    ``status`` receives nova-manage's verbose lines, so the command can print
    them and the periodic task can log them.
    """
    say = status or _quiet
    found: list[HostInfo] = []
    with connect.session_for("api", connect.api_url(conf), conf) as api:
        for cell in _cells_to_search(api, cell_uuid, say):
            if cell.is_cell0:
                say("Skipping cell0 since it does not contain hosts.")
                continue
            name = f" '{cell.name}'" if cell.name else ""
            say(f"Getting computes from cell{name}: {cell.uuid}")
            with connect.session_for("cell", cell.url, conf) as cells:
                mapper = _by_service if by_service else _by_node
                added = mapper(api, cells, cell, say)
                api.commit()  # the mapping first, then the node's mapped flag
            say(f"Found {len(added)} unmapped computes in cell: {cell.uuid}")
            found.extend(added)
    return found


def list_hosts(conf: cfg.ConfigOpts, cell_uuid: str | None = None) -> list[HostInfo]:
    """Host mappings of one cell or of all, sorted by host name."""
    with connect.session_for("api", connect.api_url(conf), conf) as api:
        query = sa.select(HostMapping).order_by(HostMapping.host)
        if cell_uuid:
            query = query.filter_by(cell_id=_get(api, cell_uuid).id)
        return [
            HostInfo(row.host, row.cell_mapping.uuid, row.cell_mapping.name or "")
            for row in api.scalars(query)
        ]
