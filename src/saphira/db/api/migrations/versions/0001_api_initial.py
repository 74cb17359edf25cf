"""Cells v2 mapping tables: cell_mappings, host_mappings, instance_mappings.

Revision ID: api_0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "api_0001"
down_revision = None
branch_labels = None
depends_on = None


def _timestamps() -> list[sa.Column[object]]:
    return [sa.Column("created_at", sa.DateTime), sa.Column("updated_at", sa.DateTime)]


def upgrade() -> None:
    op.create_table(
        "cell_mappings",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("uuid", sa.String(36), nullable=False, unique=True),
        sa.Column("name", sa.String(255)),
        sa.Column("transport_url", sa.Text, nullable=False),
        sa.Column("database_connection", sa.Text, nullable=False),
        sa.Column("disabled", sa.Boolean, nullable=False),
        *_timestamps(),
    )
    op.create_table(
        "host_mappings",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("cell_id", sa.Integer, sa.ForeignKey("cell_mappings.id"), nullable=False),
        sa.Column("host", sa.String(255), nullable=False, unique=True),
        *_timestamps(),
    )
    op.create_index("ix_host_mappings_cell_id", "host_mappings", ["cell_id"])
    op.create_table(
        "instance_mappings",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("instance_uuid", sa.String(36), nullable=False, unique=True),
        sa.Column("cell_id", sa.Integer, sa.ForeignKey("cell_mappings.id")),
        sa.Column("project_id", sa.String(255), nullable=False),
        sa.Column("user_id", sa.String(255)),
        sa.Column("queued_for_delete", sa.Boolean, nullable=False),
        *_timestamps(),
    )
    op.create_index("ix_instance_mappings_cell_id", "instance_mappings", ["cell_id"])
    op.create_index("instance_mappings_project_id_idx", "instance_mappings", ["project_id"])
