"""Cells v2 mapping tables, typed with SQLAlchemy 2 ``Mapped[]``.

The shapes follow Nova's API database so operators find what they expect:
integer ids for joins, UUIDs for everything an operator types, URLs as Text
because transport URLs with several RabbitMQ hosts grow long.
"""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

UUID = sa.String(36)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class TimestampMixin:
    created_at: Mapped[dt.datetime | None] = mapped_column(default=_now)
    updated_at: Mapped[dt.datetime | None] = mapped_column(onupdate=_now)


class CellMapping(TimestampMixin, Base):
    __tablename__ = "cell_mappings"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(UUID, unique=True)
    name: Mapped[str | None] = mapped_column(sa.String(255))
    transport_url: Mapped[str] = mapped_column(sa.Text)
    database_connection: Mapped[str] = mapped_column(sa.Text)
    disabled: Mapped[bool] = mapped_column(default=False)


class HostMapping(TimestampMixin, Base):
    __tablename__ = "host_mappings"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    cell_id: Mapped[int] = mapped_column(sa.ForeignKey("cell_mappings.id"), index=True)
    host: Mapped[str] = mapped_column(sa.String(255), unique=True)
    cell_mapping: Mapped[CellMapping] = relationship(lazy="joined")


class InstanceMapping(TimestampMixin, Base):
    __tablename__ = "instance_mappings"
    __table_args__ = (sa.Index("instance_mappings_project_id_idx", "project_id"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    instance_uuid: Mapped[str] = mapped_column(UUID, unique=True)
    # NULL until the scheduler picks a cell (or the build lands in cell0).
    cell_id: Mapped[int | None] = mapped_column(sa.ForeignKey("cell_mappings.id"), index=True)
    project_id: Mapped[str] = mapped_column(sa.String(255))
    user_id: Mapped[str | None] = mapped_column(sa.String(255))
    queued_for_delete: Mapped[bool] = mapped_column(default=False)
    cell_mapping: Mapped[CellMapping | None] = relationship(lazy="joined")
