"""The tables of Neutron's extensions: security groups and rules, agents, quotas.

A rule carries a fingerprint (its normalized match) under a unique key per
group, so two equal rules created at once cannot both land; the default
group is keyed by project, so two first uses make one.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from saphira.db.network.models import ID, Base, StandardAttrs, Timestamp


class SecurityGroup(StandardAttrs, Base):
    __tablename__ = "securitygroups"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    project_id: Mapped[str] = mapped_column(sa.String(255), index=True)
    name: Mapped[str] = mapped_column(sa.String(255), default="")
    stateful: Mapped[bool] = mapped_column(default=True)

    rules: Mapped[list[SecurityGroupRule]] = relationship(
        cascade="all, delete-orphan",
        lazy="selectin",
        foreign_keys="SecurityGroupRule.security_group_id",
        order_by="SecurityGroupRule.created_at",
    )


class DefaultSecurityGroup(Base):
    __tablename__ = "default_security_group"

    project_id: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    security_group_id: Mapped[str] = mapped_column(
        ID, sa.ForeignKey("securitygroups.id", ondelete="CASCADE"), unique=True
    )


class SecurityGroupRule(StandardAttrs, Base):
    __tablename__ = "securitygrouprules"
    __table_args__ = (
        sa.UniqueConstraint("security_group_id", "fingerprint", name="uniq_rule_in_group"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    project_id: Mapped[str] = mapped_column(sa.String(255), index=True)
    security_group_id: Mapped[str] = mapped_column(
        ID, sa.ForeignKey("securitygroups.id", ondelete="CASCADE"), index=True
    )
    remote_group_id: Mapped[str | None] = mapped_column(
        ID, sa.ForeignKey("securitygroups.id", ondelete="CASCADE"), index=True
    )
    direction: Mapped[str] = mapped_column(sa.String(16))
    ethertype: Mapped[str] = mapped_column(sa.String(40))
    protocol: Mapped[str | None] = mapped_column(sa.String(40))
    port_range_min: Mapped[int | None]
    port_range_max: Mapped[int | None]
    remote_ip_prefix: Mapped[str | None] = mapped_column(sa.String(255))
    fingerprint: Mapped[str] = mapped_column(sa.String(255))


class Agent(Base):
    __tablename__ = "agents"
    __table_args__ = (sa.UniqueConstraint("agent_type", "host", name="uniq_agent_on_host"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    agent_type: Mapped[str] = mapped_column(sa.String(255))
    binary: Mapped[str] = mapped_column(sa.String(255))
    topic: Mapped[str] = mapped_column(sa.String(255))
    host: Mapped[str] = mapped_column(sa.String(255), index=True)
    availability_zone: Mapped[str | None] = mapped_column(sa.String(255))
    admin_state_up: Mapped[bool] = mapped_column(default=True)
    description: Mapped[str | None] = mapped_column(sa.String(255))
    configurations: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    created_at: Mapped[dt.datetime] = mapped_column(Timestamp)
    started_at: Mapped[dt.datetime] = mapped_column(Timestamp)
    heartbeat_timestamp: Mapped[dt.datetime] = mapped_column(Timestamp)


class Quota(Base):
    __tablename__ = "quotas"

    project_id: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    resource: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    limit: Mapped[int]
