"""Build requests: the serialized Instance of a server not yet in a cell.

The API writes one with the instance mapping (cell NULL) and request spec;
the conductor deletes it once the instance row exists in a cell. Until then
list, show and delete read the server from here, as Nova does.
"""

from __future__ import annotations

import datetime as dt
import json

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.api.models import BuildRequest
from saphira.objects import Instance


def create(session: Session, instance: Instance) -> None:
    row = BuildRequest(
        instance_uuid=instance.uuid,
        project_id=instance.project_id,
        instance=json.dumps(instance.to_primitive()),
        created_at=instance.created_at,
    )
    session.add(row)


def get(session: Session, instance_uuid: str) -> Instance | None:
    row = session.scalars(sa.select(BuildRequest).filter_by(instance_uuid=instance_uuid)).first()
    return None if row is None else _instance(row)


def list_requests(session: Session, project_id: str | None = None) -> list[Instance]:
    """Newest first, as servers are listed."""
    stmt = sa.select(BuildRequest).order_by(BuildRequest.created_at.desc(), BuildRequest.id.desc())
    if project_id is not None:
        stmt = stmt.where(BuildRequest.project_id == project_id)
    return [_instance(row) for row in session.scalars(stmt)]


def created_before(session: Session, before: dt.datetime) -> list[Instance]:
    """Every build request recorded before ``before``, oldest first (the lost-build watchdog)."""
    stmt = sa.select(BuildRequest).where(BuildRequest.created_at < before)
    return [_instance(row) for row in session.scalars(stmt.order_by(BuildRequest.id))]


def delete(session: Session, instance_uuid: str) -> bool:
    """True when this call removed it (False: the conductor got there first)."""
    result = session.execute(sa.delete(BuildRequest).filter_by(instance_uuid=instance_uuid))
    return bool(result.rowcount)  # type: ignore[attr-defined]


def _instance(row: BuildRequest) -> Instance:
    instance = Instance.from_primitive(json.loads(row.instance))
    instance.created_at = instance.created_at or row.created_at
    instance.updated_at = instance.updated_at or row.created_at
    return instance
