"""Identity tables, typed with SQLAlchemy 2 ``Mapped[]``.

Lengths follow Keystone's (ids 64, names 64 or 255) so composite unique keys
stay under MariaDB's 3072-byte index limit with utf8mb4. Timestamps are naive
UTC with microseconds everywhere (MariaDB needs DATETIME(6) for that), because
revocation compares a token's issue time with an event's to the microsecond.
"""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

ID = sa.String(64)
Timestamp = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")


class Base(DeclarativeBase):
    pass


class Domain(Base):
    __tablename__ = "domain"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(64), unique=True)
    description: Mapped[str | None] = mapped_column(sa.Text)
    enabled: Mapped[bool] = mapped_column(default=True)
    extra: Mapped[str | None] = mapped_column(sa.Text)


class Project(Base):
    __tablename__ = "project"
    __table_args__ = (sa.UniqueConstraint("domain_id", "name", name="uq_project_domain_name"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(64))
    domain_id: Mapped[str] = mapped_column(ID, sa.ForeignKey("domain.id"))
    parent_id: Mapped[str | None] = mapped_column(ID, sa.ForeignKey("project.id"))
    description: Mapped[str | None] = mapped_column(sa.Text)
    enabled: Mapped[bool] = mapped_column(default=True)
    extra: Mapped[str | None] = mapped_column(sa.Text)


class User(Base):
    __tablename__ = "user"
    __table_args__ = (sa.UniqueConstraint("domain_id", "name", name="uq_user_domain_name"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(255))
    domain_id: Mapped[str] = mapped_column(ID, sa.ForeignKey("domain.id"))
    default_project_id: Mapped[str | None] = mapped_column(ID)
    password_hash: Mapped[str | None] = mapped_column(sa.String(255))
    enabled: Mapped[bool] = mapped_column(default=True)
    extra: Mapped[str | None] = mapped_column(sa.Text)
    created_at: Mapped[dt.datetime] = mapped_column(Timestamp)
    # Keystone's lockout bookkeeping ([security_compliance] lockout_*).
    failed_auth_count: Mapped[int | None] = mapped_column(sa.Integer)
    failed_auth_at: Mapped[dt.datetime | None] = mapped_column(Timestamp)


class Role(Base):
    __tablename__ = "role"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(255), unique=True)
    description: Mapped[str | None] = mapped_column(sa.Text)


class ImpliedRole(Base):
    __tablename__ = "implied_role"

    prior_role_id: Mapped[str] = mapped_column(
        ID, sa.ForeignKey("role.id", ondelete="CASCADE"), primary_key=True
    )
    implied_role_id: Mapped[str] = mapped_column(
        ID, sa.ForeignKey("role.id", ondelete="CASCADE"), primary_key=True
    )


class RoleAssignment(Base):
    """One grant: ``type`` is UserProject, UserDomain or UserSystem.

    ``target_id`` is a project id, a domain id, or "all" for the system; one
    table keeps "which roles does this user have where" one query.
    """

    __tablename__ = "assignment"
    __table_args__ = (sa.Index("ix_assignment_actor", "actor_id"),)

    type: Mapped[str] = mapped_column(sa.String(16), primary_key=True)
    actor_id: Mapped[str] = mapped_column(ID, primary_key=True)
    target_id: Mapped[str] = mapped_column(ID, primary_key=True)
    role_id: Mapped[str] = mapped_column(
        ID, sa.ForeignKey("role.id", ondelete="CASCADE"), primary_key=True
    )


class Region(Base):
    __tablename__ = "region"

    id: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    description: Mapped[str | None] = mapped_column(sa.Text)
    parent_region_id: Mapped[str | None] = mapped_column(sa.String(255))


class Service(Base):
    __tablename__ = "service"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    type: Mapped[str] = mapped_column(sa.String(255))
    name: Mapped[str | None] = mapped_column(sa.String(255))
    description: Mapped[str | None] = mapped_column(sa.Text)
    enabled: Mapped[bool] = mapped_column(default=True)


class Endpoint(Base):
    __tablename__ = "endpoint"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    service_id: Mapped[str] = mapped_column(ID, sa.ForeignKey("service.id", ondelete="CASCADE"))
    interface: Mapped[str] = mapped_column(sa.String(8))
    region_id: Mapped[str | None] = mapped_column(sa.String(255), sa.ForeignKey("region.id"))
    url: Mapped[str] = mapped_column(sa.Text)
    enabled: Mapped[bool] = mapped_column(default=True)


class RevocationEvent(Base):
    """Tokens matching audit_id, or issued for user_id before issued_before, are revoked."""

    __tablename__ = "revocation_event"

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    audit_id: Mapped[str | None] = mapped_column(sa.String(32), index=True)
    user_id: Mapped[str | None] = mapped_column(ID, index=True)
    issued_before: Mapped[dt.datetime] = mapped_column(Timestamp)
    revoked_at: Mapped[dt.datetime] = mapped_column(Timestamp, index=True)
