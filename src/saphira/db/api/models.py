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


# --- Compute API tables (api_0002): flavors, key pairs, quotas, server groups,
# request specs. Shapes follow Nova's API database; ``quota_locks`` is ours
# (see saphira.db.api.quota: one row per project serialises quota claims).


class Flavor(TimestampMixin, Base):
    __tablename__ = "flavors"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    flavorid: Mapped[str] = mapped_column(sa.String(255), unique=True)
    name: Mapped[str] = mapped_column(sa.String(255), unique=True)
    memory_mb: Mapped[int]
    vcpus: Mapped[int]
    root_gb: Mapped[int] = mapped_column(default=0)
    ephemeral_gb: Mapped[int] = mapped_column(default=0)
    swap: Mapped[int] = mapped_column(default=0)
    rxtx_factor: Mapped[float] = mapped_column(sa.Float, default=1.0)
    vcpu_weight: Mapped[int | None]
    disabled: Mapped[bool] = mapped_column(default=False)
    is_public: Mapped[bool] = mapped_column(default=True)
    description: Mapped[str | None] = mapped_column(sa.Text)
    extra_specs: Mapped[list[FlavorExtraSpec]] = relationship(
        lazy="selectin", cascade="all, delete-orphan", order_by="FlavorExtraSpec.key"
    )
    projects: Mapped[list[FlavorProject]] = relationship(
        lazy="selectin", cascade="all, delete-orphan", order_by="FlavorProject.project_id"
    )


class FlavorExtraSpec(TimestampMixin, Base):
    __tablename__ = "flavor_extra_specs"
    __table_args__ = (
        sa.UniqueConstraint("flavor_id", "key", name="uniq_flavor_extra_specs0flavor_id0key"),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    flavor_id: Mapped[int] = mapped_column(sa.ForeignKey("flavors.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(sa.String(255))
    value: Mapped[str | None] = mapped_column(sa.String(255))


class FlavorProject(TimestampMixin, Base):
    __tablename__ = "flavor_projects"
    __table_args__ = (
        sa.UniqueConstraint(
            "flavor_id", "project_id", name="uniq_flavor_projects0flavor_id0project_id"
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    flavor_id: Mapped[int] = mapped_column(sa.ForeignKey("flavors.id", ondelete="CASCADE"))
    project_id: Mapped[str] = mapped_column(sa.String(255))


class KeyPair(TimestampMixin, Base):
    __tablename__ = "key_pairs"
    __table_args__ = (sa.UniqueConstraint("user_id", "name", name="uniq_key_pairs0user_id0name"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(sa.String(255))
    user_id: Mapped[str] = mapped_column(sa.String(255))
    fingerprint: Mapped[str | None] = mapped_column(sa.String(255))
    public_key: Mapped[str | None] = mapped_column(sa.Text)
    type: Mapped[str] = mapped_column(sa.String(10), default="ssh")


class Quota(TimestampMixin, Base):
    __tablename__ = "quotas"
    __table_args__ = (
        sa.UniqueConstraint("project_id", "resource", name="uniq_quotas0project_id0resource"),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    project_id: Mapped[str] = mapped_column(sa.String(255))
    resource: Mapped[str] = mapped_column(sa.String(255))
    hard_limit: Mapped[int | None]


class ProjectUserQuota(TimestampMixin, Base):
    __tablename__ = "project_user_quotas"
    __table_args__ = (
        sa.UniqueConstraint(
            "user_id", "project_id", "resource",
            name="uniq_project_user_quotas0user_id0project_id0resource",
        ),
    )  # fmt: skip

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    project_id: Mapped[str] = mapped_column(sa.String(255), index=True)
    user_id: Mapped[str] = mapped_column(sa.String(255), index=True)
    resource: Mapped[str] = mapped_column(sa.String(255))
    hard_limit: Mapped[int | None]


class QuotaClass(TimestampMixin, Base):
    __tablename__ = "quota_classes"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    class_name: Mapped[str] = mapped_column(sa.String(255), index=True)
    resource: Mapped[str] = mapped_column(sa.String(255))
    hard_limit: Mapped[int | None]


class QuotaLock(Base):
    __tablename__ = "quota_locks"

    project_id: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    generation: Mapped[int] = mapped_column(default=0)


class InstanceGroup(TimestampMixin, Base):
    __tablename__ = "instance_groups"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(UUID, unique=True)
    name: Mapped[str | None] = mapped_column(sa.String(255))
    user_id: Mapped[str | None] = mapped_column(sa.String(255))
    project_id: Mapped[str | None] = mapped_column(sa.String(255), index=True)
    policies: Mapped[list[InstanceGroupPolicy]] = relationship(
        lazy="selectin", cascade="all, delete-orphan"
    )
    members: Mapped[list[InstanceGroupMember]] = relationship(
        lazy="selectin", cascade="all, delete-orphan", order_by="InstanceGroupMember.id"
    )


class InstanceGroupPolicy(Base):
    __tablename__ = "instance_group_policy"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    policy: Mapped[str] = mapped_column(sa.String(255))
    rules: Mapped[str | None] = mapped_column(sa.Text)  # JSON object
    group_id: Mapped[int] = mapped_column(
        sa.ForeignKey("instance_groups.id", ondelete="CASCADE"), index=True
    )


class InstanceGroupMember(TimestampMixin, Base):
    __tablename__ = "instance_group_member"
    __table_args__ = (
        sa.UniqueConstraint(
            "group_id", "instance_uuid", name="uniq_instance_group_member0group_id0instance_uuid"
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    instance_uuid: Mapped[str] = mapped_column(sa.String(255))
    group_id: Mapped[int] = mapped_column(
        sa.ForeignKey("instance_groups.id", ondelete="CASCADE"), index=True
    )


class RequestSpec(TimestampMixin, Base):
    """Nova's request spec, plus the flavor's vcpus and memory_mb as columns so
    that quota counting (instances, cores, ram) is one SQL aggregate in the API
    database, inside the quota lock's transaction."""

    __tablename__ = "request_specs"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    instance_uuid: Mapped[str] = mapped_column(UUID, unique=True)
    spec: Mapped[str] = mapped_column(sa.Text)  # JSON
    vcpus: Mapped[int] = mapped_column(default=0)
    memory_mb: Mapped[int] = mapped_column(default=0)


# --- Servers (api_0003): Nova's build requests. A server exists here, as the
# serialized Instance, from the API's accept until the conductor has created
# its row in a cell; list/show/delete read it meanwhile.


class BuildRequest(TimestampMixin, Base):
    __tablename__ = "build_requests"
    __table_args__ = (sa.Index("build_requests_project_id_idx", "project_id"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    instance_uuid: Mapped[str] = mapped_column(UUID, unique=True)
    project_id: Mapped[str] = mapped_column(sa.String(255))
    instance: Mapped[str] = mapped_column(sa.Text)  # Instance.to_primitive() as JSON
    block_device_mappings: Mapped[str | None] = mapped_column(sa.Text)  # JSON list


# --- Join tokens (api_0004): saphira-manage compute-token create makes one; a new
# compute node redeems it once (POST /compute-join on the compute API) for the
# configuration it needs. Only the secret's SHA-256 is kept.


class ComputeJoinToken(Base):
    __tablename__ = "compute_join_tokens"

    id: Mapped[str] = mapped_column(UUID, primary_key=True)
    secret_hash: Mapped[str] = mapped_column(sa.String(64))
    created_at: Mapped[dt.datetime] = mapped_column(default=_now)
    expires_at: Mapped[dt.datetime]
    used_at: Mapped[dt.datetime | None]
    used_by: Mapped[str | None] = mapped_column(sa.String(255))  # the redeeming address
