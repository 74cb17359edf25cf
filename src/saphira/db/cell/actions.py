"""Instance actions, their events and instance faults in a cell database.

An action is one API request (``request_id``) on one instance; services add
events to it as they work. Writers look the action up by (instance,
request_id), so an agent needs nothing but the request context it received.
"""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.cell import models
from saphira.objects import InstanceFault


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def action_start(
    session: Session,
    instance_uuid: str,
    request_id: str,
    action: str,
    *,
    project_id: str,
    user_id: str,
) -> int:
    """Record (or find, when the API already did) the action; its id."""
    found = _action(session, instance_uuid, request_id)
    if found is not None:
        return found.id
    row = models.InstanceAction(
        action=action, instance_uuid=instance_uuid, request_id=request_id,
        user_id=user_id, project_id=project_id, start_time=_now(),
    )  # fmt: skip
    session.add(row)
    session.flush()
    return row.id


def first_action(
    session: Session,
    instance_uuid: str,
    request_id: str,
    action: str,
    event: str,
    result: str,
    *,
    project_id: str,
    user_id: str,
    details: str | None = None,
    traceback: str | None = None,
) -> None:
    """A new instance's first action with its first event, already finished (the
    conductor's build: its scheduling). Written without the look-ups ``action_start`` and
    ``event_finish`` make: the instance row was inserted in this transaction, so nothing
    can hang off it yet (three SELECTs fewer per build)."""
    now = _now()
    row = models.InstanceAction(
        action=action, instance_uuid=instance_uuid, request_id=request_id, user_id=user_id,
        project_id=project_id, start_time=now, finish_time=now,
        message="Error" if result == "Error" else None,
    )  # fmt: skip
    session.add(row)
    session.flush()
    session.add(
        models.InstanceActionEvent(
            event=event, action_id=row.id, start_time=now, finish_time=now, result=result,
            details=details, traceback=traceback,
        )
    )  # fmt: skip
    session.flush()


def event_start(
    session: Session, instance_uuid: str, request_id: str, event: str, host: str | None
) -> bool:
    """False when there is no action for this request (nothing to attach to)."""
    action = _action(session, instance_uuid, request_id)
    if action is None:
        return False
    session.add(
        models.InstanceActionEvent(event=event, action_id=action.id, start_time=_now(), host=host)
    )
    session.flush()
    return True


def event_finish(
    session: Session,
    instance_uuid: str,
    request_id: str,
    event: str,
    result: str,
    *,
    details: str | None = None,
    traceback: str | None = None,
    host: str | None = None,
) -> bool:
    """Close the newest open ``event`` (opening it first if nobody did)."""
    action = _action(session, instance_uuid, request_id)
    if action is None:
        return False
    row = session.scalars(_OPEN_EVENT, {"action": action.id, "event": event}).first()
    if row is None:
        row = models.InstanceActionEvent(
            event=event, action_id=action.id, start_time=_now(), host=host
        )
        session.add(row)
    row.finish_time, row.result = _now(), result
    row.details, row.traceback = details, traceback
    if result == "Error":
        action.message = "Error"
    action.finish_time = row.finish_time
    session.flush()
    return True


def fault_create(session: Session, fault: InstanceFault) -> None:
    """Messages longer than the column keep their head; details keep it all."""
    session.add(
        models.InstanceFault(
            instance_uuid=fault.instance_uuid, code=fault.code, message=fault.message[:255],
            details=fault.details or fault.message, host=fault.host,
        )
    )  # fmt: skip
    session.flush()


def record_failure(
    session: Session,
    instance_uuid: str,
    request_id: str,
    fault: InstanceFault | None,
    event: str | None,
) -> None:
    """A failed step: its fault, and its action event closed as an error with the fault's
    message (each where given)."""
    if fault is not None:
        fault_create(session, fault)
    if event is not None:
        details = fault.message if fault is not None else None
        event_finish(session, instance_uuid, request_id, event, "Error", details=details)


# The look-ups every event of every action runs, built once with their keys bound (a
# statement built per call pays for its cache key each time).
_ACTION = (
    sa.select(models.InstanceAction)
    .where(models.InstanceAction.instance_uuid == sa.bindparam("instance", type_=sa.String()))
    .where(models.InstanceAction.request_id == sa.bindparam("request", type_=sa.String()))
    .order_by(models.InstanceAction.id.desc())
)
_OPEN_EVENT = (
    sa.select(models.InstanceActionEvent)
    .where(models.InstanceActionEvent.action_id == sa.bindparam("action", type_=sa.Integer()))
    .where(models.InstanceActionEvent.event == sa.bindparam("event", type_=sa.String()))
    .where(models.InstanceActionEvent.finish_time.is_(None))
    .order_by(models.InstanceActionEvent.id.desc())
)


def _action(session: Session, instance_uuid: str, request_id: str) -> models.InstanceAction | None:
    return session.scalars(_ACTION, {"instance": instance_uuid, "request": request_id}).first()
