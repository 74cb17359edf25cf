"""Migrations: each move of an instance between hosts (Nova's migrations table).

Revision ID: cell_0004
Revises: cell_0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "cell_0004"
down_revision = "cell_0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "migrations",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("created_at", sa.DateTime),
        sa.Column("updated_at", sa.DateTime),
        sa.Column("deleted_at", sa.DateTime),
        sa.Column("deleted", sa.Integer, nullable=False),
        sa.Column("uuid", sa.String(36), nullable=False, unique=True),
        sa.Column("instance_uuid", sa.String(36), nullable=False),
        sa.Column("source_compute", sa.String(255)),
        sa.Column("dest_compute", sa.String(255)),
        sa.Column("source_node", sa.String(255)),
        sa.Column("dest_node", sa.String(255)),
        sa.Column("old_flavor_id", sa.String(255)),
        sa.Column("new_flavor_id", sa.String(255)),
        sa.Column("migration_type", sa.String(32), nullable=False),
        sa.Column("status", sa.String(255), nullable=False),
        sa.Column("project_id", sa.String(255)),
        sa.Column("user_id", sa.String(255)),
    )
    op.create_index(
        "migrations_instance_uuid_and_status_idx", "migrations",
        ["deleted", "instance_uuid", "status"],
    )  # fmt: skip
    op.create_index(
        "migrations_by_host_nodes_and_status_idx", "migrations",
        ["deleted", "source_compute", "dest_compute", "status"],
    )  # fmt: skip


def downgrade() -> None:
    op.drop_table("migrations")
