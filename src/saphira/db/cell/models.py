"""Cell database tables, typed with SQLAlchemy 2 ``Mapped[]``.

Host discovery's services and compute_nodes (cell_0001), then instances and
what hangs off them (cell_0002): faults, actions and their events, metadata,
tags and the network info cache; console tokens (cell_0003); migrations (cell_0004).
Rows are soft-deleted as in Nova: ``deleted`` holds 0 while live and the row's
id once deleted, so a host can re-register under the same name while unique
constraints still hold.
"""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

UUID = sa.String(36)
# user_data and cached network info outgrow MySQL's 64 KiB TEXT.
LONG_TEXT = sa.Text().with_variant(mysql.MEDIUMTEXT(), "mysql", "mariadb")


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


class Instance(SoftDeleteMixin, Base):
    """One server. The three state columns change only by compare-and-swap
    (``saphira.db.cell.instances.save_state``)."""

    __tablename__ = "instances"
    __table_args__ = (
        sa.Index("instances_project_id_deleted_idx", "project_id", "deleted"),
        # A project's default listing, answered from the index alone (cell_0005).
        sa.Index(
            "instances_project_id_deleted_created_at_uuid_idx",
            "project_id",
            "deleted",
            "created_at",
            "uuid",
        ),
        sa.Index("instances_host_deleted_idx", "host", "deleted"),
        sa.Index("instances_created_at_id_idx", "created_at", "id"),
        sa.Index("instances_updated_at_idx", "updated_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(UUID, unique=True)
    project_id: Mapped[str] = mapped_column(sa.String(255))
    user_id: Mapped[str] = mapped_column(sa.String(255))
    display_name: Mapped[str] = mapped_column(sa.String(255), default="")
    display_description: Mapped[str | None] = mapped_column(sa.Text)
    hostname: Mapped[str] = mapped_column(sa.String(255), default="")
    image_ref: Mapped[str] = mapped_column(sa.String(255), default="")
    host: Mapped[str | None] = mapped_column(sa.String(255))
    node: Mapped[str | None] = mapped_column(sa.String(255))
    vm_state: Mapped[str] = mapped_column(sa.String(255))
    task_state: Mapped[str | None] = mapped_column(sa.String(255))
    power_state: Mapped[int] = mapped_column(default=0)
    # The flavor snapshot (a Flavor primitive as JSON) plus the columns quota
    # sums and the flavor filter read.
    flavor: Mapped[str] = mapped_column(sa.Text)
    flavorid: Mapped[str] = mapped_column(sa.String(255))
    vcpus: Mapped[int] = mapped_column(default=0)
    memory_mb: Mapped[int] = mapped_column(default=0)
    root_gb: Mapped[int] = mapped_column(default=0)
    ephemeral_gb: Mapped[int] = mapped_column(default=0)
    system_metadata: Mapped[str] = mapped_column(sa.Text, default="{}")
    launched_at: Mapped[dt.datetime | None]
    terminated_at: Mapped[dt.datetime | None]
    key_name: Mapped[str | None] = mapped_column(sa.String(255))
    key_data: Mapped[str | None] = mapped_column(sa.Text)
    user_data: Mapped[str | None] = mapped_column(LONG_TEXT)
    availability_zone: Mapped[str | None] = mapped_column(sa.String(255))
    locked: Mapped[bool] = mapped_column(default=False)
    locked_by: Mapped[str | None] = mapped_column(sa.String(16))
    access_ip_v4: Mapped[str | None] = mapped_column(sa.String(39))
    access_ip_v6: Mapped[str | None] = mapped_column(sa.String(39))
    config_drive: Mapped[str] = mapped_column(sa.String(255), default="")
    launch_index: Mapped[int] = mapped_column(default=0)
    reservation_id: Mapped[str] = mapped_column(sa.String(255), default="")
    progress: Mapped[int] = mapped_column(default=0)

    metadata_items: Mapped[list[InstanceMetadata]] = relationship(
        primaryjoin="and_(Instance.uuid == InstanceMetadata.instance_uuid, "
        "InstanceMetadata.deleted == 0)",
        lazy="selectin",
        viewonly=True,
    )
    tags: Mapped[list[Tag]] = relationship(lazy="selectin", viewonly=True)
    info_cache: Mapped[InstanceInfoCache | None] = relationship(lazy="selectin", viewonly=True)


class InstanceMetadata(SoftDeleteMixin, Base):
    __tablename__ = "instance_metadata"
    __table_args__ = (sa.Index("instance_metadata_instance_uuid_idx", "instance_uuid"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    instance_uuid: Mapped[str] = mapped_column(UUID, sa.ForeignKey("instances.uuid"))
    key: Mapped[str] = mapped_column(sa.String(255))
    value: Mapped[str] = mapped_column(sa.String(255))


class Tag(Base):
    __tablename__ = "tags"
    __table_args__ = (sa.Index("tags_tag_idx", "tag"),)

    resource_id: Mapped[str] = mapped_column(
        UUID, sa.ForeignKey("instances.uuid"), primary_key=True
    )
    tag: Mapped[str] = mapped_column(sa.String(80), primary_key=True)


class InstanceFault(SoftDeleteMixin, Base):
    __tablename__ = "instance_faults"
    __table_args__ = (sa.Index("instance_faults_instance_uuid_idx", "instance_uuid"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    instance_uuid: Mapped[str] = mapped_column(UUID, sa.ForeignKey("instances.uuid"))
    code: Mapped[int]
    message: Mapped[str] = mapped_column(sa.String(255))
    details: Mapped[str] = mapped_column(LONG_TEXT, default="")
    host: Mapped[str | None] = mapped_column(sa.String(255))


class InstanceAction(SoftDeleteMixin, Base):
    __tablename__ = "instance_actions"
    __table_args__ = (
        sa.Index("instance_uuid_idx", "instance_uuid"),
        sa.Index("request_id_idx", "request_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    action: Mapped[str] = mapped_column(sa.String(255))
    instance_uuid: Mapped[str] = mapped_column(UUID)
    request_id: Mapped[str] = mapped_column(sa.String(255))
    user_id: Mapped[str] = mapped_column(sa.String(255))
    project_id: Mapped[str] = mapped_column(sa.String(255))
    start_time: Mapped[dt.datetime] = mapped_column(default=_now)
    finish_time: Mapped[dt.datetime | None]
    message: Mapped[str | None] = mapped_column(sa.String(255))


class InstanceActionEvent(SoftDeleteMixin, Base):
    __tablename__ = "instance_actions_events"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    event: Mapped[str] = mapped_column(sa.String(255))
    action_id: Mapped[int] = mapped_column(sa.ForeignKey("instance_actions.id"), index=True)
    start_time: Mapped[dt.datetime] = mapped_column(default=_now)
    finish_time: Mapped[dt.datetime | None]
    result: Mapped[str | None] = mapped_column(sa.String(255))
    traceback: Mapped[str | None] = mapped_column(sa.Text)
    host: Mapped[str | None] = mapped_column(sa.String(255))
    details: Mapped[str | None] = mapped_column(sa.Text)


class InstanceInfoCache(SoftDeleteMixin, Base):
    __tablename__ = "instance_info_caches"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    instance_uuid: Mapped[str] = mapped_column(UUID, sa.ForeignKey("instances.uuid"), unique=True)
    network_info: Mapped[str] = mapped_column(LONG_TEXT, default="[]")


class ConsoleAuthToken(Base):
    """One console token (cell_0003): only its SHA-256 is kept, as Nova keeps it.

    ``expires`` is seconds since the epoch (Nova's integer column), so the
    purge and the lookup compare integers on every engine.
    """

    __tablename__ = "console_auth_tokens"
    __table_args__ = (
        sa.UniqueConstraint("token_hash", name="uniq_console_auth_tokens0token_hash"),
        sa.Index("console_auth_tokens_instance_uuid_idx", "instance_uuid"),
        sa.Index("console_auth_tokens_host_expires_idx", "host", "expires"),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    created_at: Mapped[dt.datetime | None] = mapped_column(default=_now)
    token_hash: Mapped[str] = mapped_column(sa.String(255))
    console_type: Mapped[str] = mapped_column(sa.String(255))
    host: Mapped[str] = mapped_column(sa.String(255))
    port: Mapped[int]
    internal_access_path: Mapped[str | None] = mapped_column(sa.String(255))
    instance_uuid: Mapped[str] = mapped_column(UUID)
    access_url_base: Mapped[str | None] = mapped_column(sa.String(255))
    expires: Mapped[int]


class Migration(SoftDeleteMixin, Base):
    """One move of an instance between hosts (cell_0004, Nova's migrations table):
    a resize, a cold migration or an evacuation, as os-migrations lists it."""

    __tablename__ = "migrations"
    __table_args__ = (
        sa.Index("migrations_instance_uuid_and_status_idx", "deleted", "instance_uuid", "status"),
        sa.Index(
            "migrations_by_host_nodes_and_status_idx",
            "deleted",
            "source_compute",
            "dest_compute",
            "status",
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(UUID, unique=True)
    instance_uuid: Mapped[str] = mapped_column(UUID)
    source_compute: Mapped[str | None] = mapped_column(sa.String(255))
    dest_compute: Mapped[str | None] = mapped_column(sa.String(255))
    source_node: Mapped[str | None] = mapped_column(sa.String(255))
    dest_node: Mapped[str | None] = mapped_column(sa.String(255))
    old_flavor_id: Mapped[str | None] = mapped_column(sa.String(255))
    new_flavor_id: Mapped[str | None] = mapped_column(sa.String(255))
    migration_type: Mapped[str] = mapped_column(sa.String(32))
    status: Mapped[str] = mapped_column(sa.String(255))
    project_id: Mapped[str | None] = mapped_column(sa.String(255))
    user_id: Mapped[str | None] = mapped_column(sa.String(255))
