"""os-instance-actions: what was asked of a server and the events that followed."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import sqlalchemy as sa

from saphira.computesvc.caller import Caller
from saphira.computesvc.lookup import Located, cell_session
from saphira.db.cell import models


@dataclass(frozen=True)
class ActionRecord:
    id: int
    action: str
    instance_uuid: str
    request_id: str
    user_id: str | None
    project_id: str
    start_time: dt.datetime | None
    updated_at: dt.datetime | None
    message: str | None


@dataclass(frozen=True)
class EventRecord:
    event: str
    start_time: dt.datetime | None
    finish_time: dt.datetime | None
    result: str | None
    traceback: str | None
    host: str | None
    details: str | None


def _action(row: models.InstanceAction) -> ActionRecord:
    return ActionRecord(row.id, row.action, row.instance_uuid, row.request_id, row.user_id,
                        row.project_id, row.start_time, row.updated_at, row.message)  # fmt: skip


def _event(row: models.InstanceActionEvent) -> EventRecord:
    return EventRecord(row.event, row.start_time, row.finish_time, row.result, row.traceback,
                       row.host, row.details)  # fmt: skip


def actions(caller: Caller, found: Located, *, since: dt.datetime | None = None,
            before: dt.datetime | None = None) -> list[ActionRecord]:  # fmt: skip
    """Newest first; ``since``/``before`` bound the action's last update (2.58, 2.66)."""
    table = models.InstanceAction
    stamp = sa.func.coalesce(table.updated_at, table.start_time)
    stmt = (sa.select(table).filter_by(instance_uuid=found.instance.uuid, deleted=0)
            .order_by(table.start_time.desc(), table.id.desc()))  # fmt: skip
    if since is not None:
        stmt = stmt.where(stamp >= since)
    if before is not None:
        stmt = stmt.where(stamp <= before)
    with cell_session(caller, found) as session:
        return [_action(row) for row in session.scalars(stmt)]


def action(caller: Caller, found: Located, request_id: str) -> ActionRecord | None:
    table = models.InstanceAction
    stmt = sa.select(table).filter_by(
        instance_uuid=found.instance.uuid, request_id=request_id, deleted=0)  # fmt: skip
    with cell_session(caller, found) as session:
        row = session.scalars(stmt).first()
        return None if row is None else _action(row)


def events(caller: Caller, found: Located, record: ActionRecord) -> list[EventRecord]:
    table = models.InstanceActionEvent
    stmt = sa.select(table).filter_by(action_id=record.id).order_by(table.start_time, table.id)
    with cell_session(caller, found) as session:
        return [_event(row) for row in session.scalars(stmt)]
