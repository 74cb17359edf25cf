"""Instances and what hangs off them: metadata, tags, faults, actions and
events, the network info cache.

Revision ID: cell_0002
Revises: cell_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "cell_0002"
down_revision = "cell_0001"
branch_labels = None
depends_on = None

# Written out rather than imported: a migration must not change when models do.
LONG_TEXT = sa.Text().with_variant(mysql.MEDIUMTEXT(), "mysql", "mariadb")


def _soft_delete() -> list[sa.Column[object]]:
    return [
        sa.Column("created_at", sa.DateTime),
        sa.Column("updated_at", sa.DateTime),
        sa.Column("deleted_at", sa.DateTime),
        sa.Column("deleted", sa.Integer, nullable=False),
    ]


def _id() -> sa.Column[int]:
    return sa.Column("id", sa.Integer, primary_key=True, autoincrement=True)


def _strings(*names: str, nullable: bool = False) -> list[sa.Column[object]]:
    return [sa.Column(name, sa.String(255), nullable=nullable) for name in names]


def _ints(*names: str) -> list[sa.Column[object]]:
    return [sa.Column(name, sa.Integer, nullable=False) for name in names]


def _instance_uuid_fk() -> sa.Column[str]:
    return sa.Column(
        "instance_uuid", sa.String(36), sa.ForeignKey("instances.uuid"), nullable=False
    )


def _instances() -> None:
    op.create_table(
        "instances",
        _id(),
        sa.Column("uuid", sa.String(36), nullable=False, unique=True),
        *_strings("project_id", "user_id", "display_name"),
        sa.Column("display_description", sa.Text),
        *_strings("hostname", "image_ref"),
        *_strings("host", "node", nullable=True),
        *_strings("vm_state"),
        *_strings("task_state", nullable=True),
        *_ints("power_state"),
        sa.Column("flavor", sa.Text, nullable=False),
        *_strings("flavorid"),
        *_ints("vcpus", "memory_mb", "root_gb", "ephemeral_gb"),
        sa.Column("system_metadata", sa.Text, nullable=False),
        sa.Column("launched_at", sa.DateTime),
        sa.Column("terminated_at", sa.DateTime),
        *_strings("key_name", nullable=True),
        sa.Column("key_data", sa.Text),
        sa.Column("user_data", LONG_TEXT),
        *_strings("availability_zone", nullable=True),
        sa.Column("locked", sa.Boolean, nullable=False),
        sa.Column("locked_by", sa.String(16)),
        sa.Column("access_ip_v4", sa.String(39)),
        sa.Column("access_ip_v6", sa.String(39)),
        *_strings("config_drive"),
        *_ints("launch_index"),
        *_strings("reservation_id"),
        *_ints("progress"),
        *_soft_delete(),
    )
    op.create_index("instances_project_id_deleted_idx", "instances", ["project_id", "deleted"])
    op.create_index("instances_host_deleted_idx", "instances", ["host", "deleted"])
    op.create_index("instances_created_at_id_idx", "instances", ["created_at", "id"])
    op.create_index("instances_updated_at_idx", "instances", ["updated_at"])


def _children() -> None:
    op.create_table(
        "instance_metadata",
        _id(),
        _instance_uuid_fk(),
        *_strings("key", "value"),
        *_soft_delete(),
    )
    op.create_index("instance_metadata_instance_uuid_idx", "instance_metadata", ["instance_uuid"])
    op.create_table(
        "tags",
        sa.Column("resource_id", sa.String(36), sa.ForeignKey("instances.uuid"), primary_key=True),
        sa.Column("tag", sa.String(80), primary_key=True),
    )
    op.create_index("tags_tag_idx", "tags", ["tag"])
    op.create_table(
        "instance_faults",
        _id(),
        _instance_uuid_fk(),
        *_ints("code"),
        *_strings("message"),
        sa.Column("details", LONG_TEXT, nullable=False),
        *_strings("host", nullable=True),
        *_soft_delete(),
    )
    op.create_index("instance_faults_instance_uuid_idx", "instance_faults", ["instance_uuid"])
    op.create_table(
        "instance_info_caches",
        _id(),
        sa.Column(
            "instance_uuid",
            sa.String(36),
            sa.ForeignKey("instances.uuid"),
            nullable=False,
            unique=True,
        ),
        sa.Column("network_info", LONG_TEXT, nullable=False),
        *_soft_delete(),
    )


def _actions() -> None:
    op.create_table(
        "instance_actions",
        _id(),
        *_strings("action"),
        sa.Column("instance_uuid", sa.String(36), nullable=False),
        *_strings("request_id", "user_id", "project_id"),
        sa.Column("start_time", sa.DateTime, nullable=False),
        sa.Column("finish_time", sa.DateTime),
        *_strings("message", nullable=True),
        *_soft_delete(),
    )
    op.create_index("instance_uuid_idx", "instance_actions", ["instance_uuid"])
    op.create_index("request_id_idx", "instance_actions", ["request_id"])
    op.create_table(
        "instance_actions_events",
        _id(),
        *_strings("event"),
        sa.Column("action_id", sa.Integer, sa.ForeignKey("instance_actions.id"), nullable=False),
        sa.Column("start_time", sa.DateTime, nullable=False),
        sa.Column("finish_time", sa.DateTime),
        *_strings("result", nullable=True),
        sa.Column("traceback", sa.Text),
        *_strings("host", nullable=True),
        sa.Column("details", sa.Text),
        *_soft_delete(),
    )
    op.create_index(
        "ix_instance_actions_events_action_id", "instance_actions_events", ["action_id"]
    )


def upgrade() -> None:
    _instances()
    _children()
    _actions()
