"""Where a server lives: a build request in the API DB, or a row in one cell.

The instance mapping says which: cell NULL means the conductor has not yet
placed it. Callers never see the difference except through ``Located.cell``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.api.compute import hosts
from saphira.api.compute.app import Call
from saphira.api.compute.network_proxy import security_group_names
from saphira.api.compute.server_views import Shown
from saphira.api.compute.state import CellRef
from saphira.db.api import build_requests
from saphira.db.api.models import InstanceGroup, InstanceGroupMember, InstanceMapping
from saphira.db.api.models import RequestSpec as SpecRow
from saphira.db.cell import instances
from saphira.db.cell import models as cell_models
from saphira.exception import InstanceNotFound
from saphira.objects import Instance, InstanceFault
from saphira.objects.base import DATA


@dataclass
class Located:
    instance: Instance
    cell: CellRef | None  # None: still a build request

    @property
    def building(self) -> bool:
        return self.cell is None


def _mapping(session: Session, uuid: str, read_deleted: bool) -> InstanceMapping | None:
    stmt = sa.select(InstanceMapping).filter_by(instance_uuid=uuid)
    if not read_deleted:
        stmt = stmt.filter_by(queued_for_delete=False)
    return session.scalars(stmt).first()


def _visible(call: Call, instance: Instance) -> bool:
    return call.context.is_admin or instance.project_id == call.context.project_id


def locate(call: Call, uuid: str, *, read_deleted: bool = False) -> Located:
    """The server, or InstanceNotFound (also for another project's server, as Nova).

    ``read_deleted``: a deleted server too (its cell row stays, soft-deleted)."""
    for _ in range(2):  # the conductor may move it into a cell between our reads
        mapping = _mapping(call.session, uuid, read_deleted)
        if mapping is None:
            break
        found = _load(call, mapping, uuid, read_deleted)
        if found is not None:
            if not _visible(call, found.instance):
                break
            return found
        call.session.expire_all()
    raise InstanceNotFound(instance_id=uuid)


def _load(call: Call, mapping: InstanceMapping, uuid: str, read_deleted: bool) -> Located | None:
    cell_row = mapping.cell_mapping
    if cell_row is None:
        instance = build_requests.get(call.session, uuid)
        return None if instance is None else Located(instance, None)
    cell = CellRef(cell_row.uuid, cell_row.name or "", cell_row.database_connection)
    with call.state.cell_session(cell) as session:
        try:
            return Located(instances.get(session, uuid, read_deleted=read_deleted), cell)
        except InstanceNotFound:
            return None


@contextmanager
def cell_session(call: Call, found: Located) -> Iterator[Session]:
    assert found.cell is not None
    with call.state.cell_session(found.cell) as session:
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


def groups_of(session: Session, uuids: list[str]) -> dict[str, tuple[str, ...]]:
    rows = session.execute(
        sa.select(InstanceGroupMember.instance_uuid, InstanceGroup.uuid)
        .join(InstanceGroup, InstanceGroup.id == InstanceGroupMember.group_id)
        .where(InstanceGroupMember.instance_uuid.in_(uuids))
    )
    found: dict[str, tuple[str, ...]] = {}
    for member, group in rows:
        found[member] = (*found.get(member, ()), group)
    return found


def specs_of(session: Session, uuids: list[str]) -> dict[str, dict[str, Any]]:
    """The request specs' fields (2.96's pinned zone, 2.100's hints), in one query.

    Read as plain JSON rather than as RequestSpec objects: a listing of a
    thousand servers should not pay for a thousand object loads.
    """
    rows = session.execute(
        sa.select(SpecRow.instance_uuid, SpecRow.spec).where(SpecRow.instance_uuid.in_(uuids))
    )
    return {uuid: dict(json.loads(spec).get(DATA, {})) for uuid, spec in rows}


def with_spec(call: Call, shown: Shown, spec: dict[str, Any] | None) -> Shown:
    if spec is not None:
        shown.pinned_az = spec.get("availability_zone")
        shown.hints = dict(spec.get("scheduler_hints") or {})
    return shown


def host_statuses(call: Call) -> dict[str, str]:
    """UP/DOWN/MAINTENANCE per compute host, read once per request (not per server)."""
    found: dict[str, str] = {}
    for entry in hosts.services(call):
        service = entry.service
        if service.binary.endswith("compute"):
            up = hosts.is_up(call, service)
            found[service.host] = "DOWN" if not up else "MAINTENANCE" if service.disabled else "UP"
    return found


def host_status(call: Call, instance: Instance, known: dict[str, str] | None = None) -> str:
    """The instance's host status; "" without a host, UNKNOWN for a host with no service."""
    if not instance.host:
        return ""
    return (known if known is not None else host_statuses(call)).get(instance.host, "UNKNOWN")


def shown(call: Call, found: Located, *, with_host_status: bool = False) -> Shown:
    uuid = found.instance.uuid
    fault = None
    if found.cell is not None:
        with call.state.cell_session(found.cell) as session:
            fault = latest_faults(session, [uuid]).get(uuid)
    status = host_status(call, found.instance) if with_host_status else ""
    view = Shown(found.instance, fault, status, groups_of(call.session, [uuid]).get(uuid, ()))
    view.security_groups = security_group_names(call, [found.instance]).get(uuid, [])
    if call.at_least("2.96"):
        view = with_spec(call, view, specs_of(call.session, [uuid]).get(uuid))
    return view


def record_action(session: Session, call: Call, uuid: str, action: str) -> None:
    """The instance action os-instance-actions lists, keyed by the request id."""
    context = call.context
    session.add(cell_models.InstanceAction(
        action=action, instance_uuid=uuid, request_id=context.request_id,
        user_id=context.user_id or "", project_id=context.project_id or "",
    ))  # fmt: skip
    session.flush()
