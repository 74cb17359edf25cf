"""Where a server lives: a build request in the API DB, or a row in one cell.

The instance mapping says which: cell NULL means the conductor has not yet
placed it. Callers never see the difference except through ``Located.cell``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.common import fastjson
from saphira.computesvc.caller import Caller
from saphira.db.api import build_requests
from saphira.db.api.cells import Cell
from saphira.db.api.models import InstanceGroup, InstanceGroupMember
from saphira.db.api.models import RequestSpec as SpecRow
from saphira.db.cell import instances
from saphira.db.cell import models as cell_models
from saphira.db.directory import mapping_of
from saphira.db.id_lists import ByIds
from saphira.exception import InstanceNotFound
from saphira.objects import Instance, InstanceFault
from saphira.objects.base import DATA


@dataclass
class Located:
    instance: Instance
    cell: Cell | None  # None: still a build request

    @property
    def building(self) -> bool:
        return self.cell is None


def locate(caller: Caller, uuid: str, *, read_deleted: bool = False) -> Located:
    """The server, or InstanceNotFound (also for another project's server, as Nova).

    ``read_deleted``: a deleted server too (its cell row stays, soft-deleted)."""
    for _ in range(2):  # the conductor may move it into a cell between our reads
        mapped = mapping_of(caller.api, uuid, deleted=read_deleted)
        if mapped is None:
            break
        found = _load(caller, mapped.cell, uuid, read_deleted)
        if found is not None:
            if not caller.sees(found.instance.project_id):
                break
            return found
        caller.api.expire_all()
    raise InstanceNotFound(instance_id=uuid)


def _load(caller: Caller, cell: Cell | None, uuid: str, read_deleted: bool) -> Located | None:
    if cell is None:
        instance = build_requests.get(caller.api, uuid)
        return None if instance is None else Located(instance, None)
    with caller.cell(cell) as session:
        try:
            return Located(instances.get(session, uuid, read_deleted=read_deleted), cell)
        except InstanceNotFound:
            return None


@contextmanager
def cell_session(caller: Caller, found: Located) -> Iterator[Session]:
    """A unit of work in the cell of a placed server."""
    assert found.cell is not None
    with caller.cell(found.cell) as session:
        yield session


def latest_faults(session: Session, uuids: list[str]) -> dict[str, InstanceFault]:
    table = cell_models.InstanceFault
    rows = session.scalars(
        sa.select(table).where(table.instance_uuid.in_(uuids), table.deleted == 0)
        .order_by(table.created_at, table.id)
    )  # fmt: skip
    return {
        row.instance_uuid: InstanceFault(
            row.instance_uuid, row.code, row.message, row.details or "", row.host, row.created_at
        )
        for row in rows
    }


FAULT_SHOWN = ("ERROR", "DELETED")  # Nova's views show a fault for these statuses alone


def fault_of(caller: Caller, found: Located) -> InstanceFault | None:
    """The fault a view of the server shows: None, and nothing read, unless its status is
    one of FAULT_SHOWN (a BUILD or ACTIVE server's poll reads one statement less)."""
    if found.cell is None or found.instance.status not in FAULT_SHOWN:
        return None
    with caller.cell(found.cell) as session:
        return latest_faults(session, [found.instance.uuid]).get(found.instance.uuid)


def faults_of(caller: Caller, uuids: list[str]) -> dict[str, InstanceFault]:
    """The latest fault of each server, looked for in every cell (cell0 too)."""
    faults: dict[str, InstanceFault] = {}
    for cell in caller.cells(with_cell0=True):
        with caller.cell(cell) as session:
            faults.update(latest_faults(session, uuids))
    return faults


# Built once, their uuids bound as one parameter (saphira.db.id_lists): a poll's show runs
# both, and a statement built per call pays for its cache key each time.
_GROUPS = ByIds.of(lambda uuids: (
    sa.select(InstanceGroupMember.instance_uuid, InstanceGroup.uuid)
    .join(InstanceGroup, InstanceGroup.id == InstanceGroupMember.group_id)
    .where(InstanceGroupMember.instance_uuid.in_(uuids))
))  # fmt: skip
_SPECS = ByIds.of(
    lambda uuids: sa.select(SpecRow.instance_uuid, SpecRow.spec).where(
        SpecRow.instance_uuid.in_(uuids)
    )
)


def groups_of(caller: Caller, uuids: list[str]) -> dict[str, tuple[str, ...]]:
    rows = _GROUPS.execute(caller.api, uuids)
    found: dict[str, tuple[str, ...]] = {}
    for member, group in rows:
        found[member] = (*found.get(member, ()), group)
    return found


@dataclass(frozen=True)
class Placement:
    """What a server's request spec asked of the scheduler: 2.96's pinned zone, 2.100's hints."""

    availability_zone: str | None
    scheduler_hints: dict[str, Any]


def specs_of(caller: Caller, uuids: list[str]) -> dict[str, Placement]:
    """The request specs' zone and hints, in one query.

    Read as plain JSON rather than as RequestSpec objects: a listing of a
    thousand servers should not pay for a thousand object loads.
    """
    rows = _SPECS.execute(caller.api, uuids)
    found: dict[str, Placement] = {}
    for uuid, spec in rows:
        data = fastjson.loads(spec).get(DATA, {})
        zone = data.get("availability_zone")
        found[uuid] = Placement(zone, dict(data.get("scheduler_hints") or {}))
    return found
