"""Compute API tables: flavors, key pairs, quotas, server groups, request specs.

Revision ID: api_0002
Revises: api_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "api_0002"
down_revision = "api_0001"
branch_labels = None
depends_on = None


def _id() -> sa.Column[int]:
    return sa.Column("id", sa.Integer, primary_key=True, autoincrement=True)


def _timestamps() -> list[sa.Column[object]]:
    return [sa.Column("created_at", sa.DateTime), sa.Column("updated_at", sa.DateTime)]


def _name(length: int = 255) -> sa.String:
    return sa.String(length)


def _flavors() -> None:
    op.create_table(
        "flavors",
        _id(),
        sa.Column("flavorid", _name(), nullable=False, unique=True),
        sa.Column("name", _name(), nullable=False, unique=True),
        sa.Column("memory_mb", sa.Integer, nullable=False),
        sa.Column("vcpus", sa.Integer, nullable=False),
        sa.Column("root_gb", sa.Integer, nullable=False),
        sa.Column("ephemeral_gb", sa.Integer, nullable=False),
        sa.Column("swap", sa.Integer, nullable=False),
        sa.Column("rxtx_factor", sa.Float, nullable=False),
        sa.Column("vcpu_weight", sa.Integer),
        sa.Column("disabled", sa.Boolean, nullable=False),
        sa.Column("is_public", sa.Boolean, nullable=False),
        sa.Column("description", sa.Text),
        *_timestamps(),
    )
    for table, column in (("flavor_extra_specs", "key"), ("flavor_projects", "project_id")):
        op.create_table(
            table,
            _id(),
            sa.Column(
                "flavor_id", sa.Integer, sa.ForeignKey("flavors.id", ondelete="CASCADE"),
                nullable=False,
            ),
            sa.Column(column, _name(), nullable=False),
            *([sa.Column("value", _name())] if column == "key" else []),
            *_timestamps(),
            sa.UniqueConstraint("flavor_id", column, name=f"uniq_{table}0flavor_id0{column}"),
        )  # fmt: skip


def _key_pairs_and_quotas() -> None:
    op.create_table(
        "key_pairs",
        _id(),
        sa.Column("name", _name(), nullable=False),
        sa.Column("user_id", _name(), nullable=False),
        sa.Column("fingerprint", _name()),
        sa.Column("public_key", sa.Text),
        sa.Column("type", _name(10), nullable=False),
        *_timestamps(),
        sa.UniqueConstraint("user_id", "name", name="uniq_key_pairs0user_id0name"),
    )
    op.create_table(
        "quotas",
        _id(),
        sa.Column("project_id", _name(), nullable=False),
        sa.Column("resource", _name(), nullable=False),
        sa.Column("hard_limit", sa.Integer),
        *_timestamps(),
        sa.UniqueConstraint("project_id", "resource", name="uniq_quotas0project_id0resource"),
    )
    op.create_table(
        "project_user_quotas",
        _id(),
        sa.Column("project_id", _name(), nullable=False, index=True),
        sa.Column("user_id", _name(), nullable=False, index=True),
        sa.Column("resource", _name(), nullable=False),
        sa.Column("hard_limit", sa.Integer),
        *_timestamps(),
        sa.UniqueConstraint(
            "user_id", "project_id", "resource",
            name="uniq_project_user_quotas0user_id0project_id0resource",
        ),
    )  # fmt: skip
    op.create_table(
        "quota_classes",
        _id(),
        sa.Column("class_name", _name(), nullable=False, index=True),
        sa.Column("resource", _name(), nullable=False),
        sa.Column("hard_limit", sa.Integer),
        *_timestamps(),
    )
    op.create_table(
        "quota_locks",
        sa.Column("project_id", _name(), primary_key=True),
        sa.Column("generation", sa.Integer, nullable=False),
    )


def _groups_and_specs() -> None:
    op.create_table(
        "instance_groups",
        _id(),
        sa.Column("uuid", sa.String(36), nullable=False, unique=True),
        sa.Column("name", _name()),
        sa.Column("user_id", _name()),
        sa.Column("project_id", _name(), index=True),
        *_timestamps(),
    )
    fk = sa.ForeignKey("instance_groups.id", ondelete="CASCADE")
    op.create_table(
        "instance_group_policy",
        _id(),
        sa.Column("policy", _name(), nullable=False),
        sa.Column("rules", sa.Text),
        sa.Column("group_id", sa.Integer, fk, nullable=False, index=True),
    )
    op.create_table(
        "instance_group_member",
        _id(),
        sa.Column("instance_uuid", _name(), nullable=False),
        sa.Column(
            "group_id", sa.Integer, sa.ForeignKey("instance_groups.id", ondelete="CASCADE"),
            nullable=False, index=True,
        ),
        *_timestamps(),
        sa.UniqueConstraint(
            "group_id", "instance_uuid", name="uniq_instance_group_member0group_id0instance_uuid"
        ),
    )  # fmt: skip
    op.create_table(
        "request_specs",
        _id(),
        sa.Column("instance_uuid", sa.String(36), nullable=False, unique=True),
        sa.Column("spec", sa.Text, nullable=False),
        sa.Column("vcpus", sa.Integer, nullable=False),
        sa.Column("memory_mb", sa.Integer, nullable=False),
        *_timestamps(),
    )


def upgrade() -> None:
    _flavors()
    _key_pairs_and_quotas()
    _groups_and_specs()
