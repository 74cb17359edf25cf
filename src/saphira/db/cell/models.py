"""Cell database tables, typed with SQLAlchemy 2 ``Mapped[]``.

Only what host discovery needs for now; the compute issue extends these.
Rows are soft-deleted as in Nova: ``deleted`` holds 0 while live and the row's
id once deleted, so a host can re-register under the same name while unique
constraints still hold.
"""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

UUID = sa.String(36)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class SoftDeleteMixin:
    created_at: Mapped[dt.datetime | None] = mapped_column(default=_now)
    updated_at: Mapped[dt.datetime | None] = mapped_column(onupdate=_now)
    deleted_at: Mapped[dt.datetime | None]
    deleted: Mapped[int] = mapped_column(default=0)


class Service(SoftDeleteMixin, Base):
    __tablename__ = "services"
    __table_args__ = (
        sa.UniqueConstraint("host", "binary", "deleted", name="uniq_services0host0binary0deleted"),
        sa.UniqueConstraint("host", "topic", "deleted", name="uniq_services0host0topic0deleted"),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(UUID, unique=True)
    host: Mapped[str] = mapped_column(sa.String(255))
    binary: Mapped[str] = mapped_column(sa.String(255))
    topic: Mapped[str | None] = mapped_column(sa.String(255))
    report_count: Mapped[int] = mapped_column(default=0)
    disabled: Mapped[bool] = mapped_column(default=False)
    disabled_reason: Mapped[str | None] = mapped_column(sa.String(255))
    forced_down: Mapped[bool] = mapped_column(default=False)
    last_seen_up: Mapped[dt.datetime | None]
    version: Mapped[int] = mapped_column(default=0)


class ComputeNode(SoftDeleteMixin, Base):
    __tablename__ = "compute_nodes"
    __table_args__ = (
        sa.UniqueConstraint(
            "host", "hypervisor_hostname", "deleted", name="uniq_compute_nodes0host0node0deleted"
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(UUID, unique=True)
    service_id: Mapped[int | None] = mapped_column(sa.ForeignKey("services.id"), index=True)
    host: Mapped[str] = mapped_column(sa.String(255))
    hypervisor_hostname: Mapped[str] = mapped_column(sa.String(255))
    hypervisor_type: Mapped[str] = mapped_column(sa.String(255), default="")
    hypervisor_version: Mapped[int] = mapped_column(default=0)
    host_ip: Mapped[str | None] = mapped_column(sa.String(39))
    vcpus: Mapped[int] = mapped_column(default=0)
    memory_mb: Mapped[int] = mapped_column(default=0)
    local_gb: Mapped[int] = mapped_column(default=0)
    vcpus_used: Mapped[int] = mapped_column(default=0)
    memory_mb_used: Mapped[int] = mapped_column(default=0)
    local_gb_used: Mapped[int] = mapped_column(default=0)
    cpu_info: Mapped[str] = mapped_column(sa.Text, default="{}")
    # 1 once `discover_hosts` has given the host a host mapping in the API DB.
    mapped: Mapped[int] = mapped_column(default=0)
