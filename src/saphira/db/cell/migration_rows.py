"""The migrations table: a row per move, written by the conductor, listed by
os-migrations (newest first)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.cell.models import Migration as Row


@dataclass(frozen=True)
class MigrationRecord:
    """What os-migrations shows of one move."""

    id: int
    uuid: str
    instance_uuid: str
    source_compute: str | None
    dest_compute: str | None
    source_node: str | None
    dest_node: str | None
    old_flavor_id: str | None
    new_flavor_id: str | None
    migration_type: str
    status: str
    project_id: str | None
    user_id: str | None
    created_at: dt.datetime | None
    updated_at: dt.datetime | None


@dataclass(frozen=True)
class MigrationFilter:
    instance_uuid: str | None = None
    host: str | None = None  # source or destination
    status: str | None = None
    migration_type: str | None = None
    source_compute: str | None = None


def create(session: Session, **values: str | None) -> None:
    session.add(Row(**values))
    session.flush()


def set_status(session: Session, uuid: str, status: str) -> None:
    session.execute(sa.update(Row).where(Row.uuid == uuid).values(status=status))


def set_destination(session: Session, uuid: str, host: str, node: str) -> None:
    session.execute(sa.update(Row).where(Row.uuid == uuid).values(dest_compute=host,
                                                                  dest_node=node))  # fmt: skip


def listed(session: Session, wanted: MigrationFilter) -> list[MigrationRecord]:
    stmt = sa.select(Row).where(Row.deleted == 0)
    for name in ("instance_uuid", "status", "migration_type", "source_compute"):
        value = getattr(wanted, name)
        if value is not None:
            stmt = stmt.where(getattr(Row, name) == value)
    if wanted.host is not None:
        stmt = stmt.where(sa.or_(Row.source_compute == wanted.host,
                                 Row.dest_compute == wanted.host))  # fmt: skip
    names = [f.name for f in dataclasses.fields(MigrationRecord)]
    rows = session.scalars(stmt.order_by(Row.created_at.desc(), Row.id.desc()))
    return [MigrationRecord(**{n: getattr(row, n) for n in names}) for row in rows]
