"""Build requests: servers accepted by the API and not yet in a cell.

Revision ID: api_0003
Revises: api_0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "api_0003"
down_revision = "api_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "build_requests",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("instance_uuid", sa.String(36), nullable=False, unique=True),
        sa.Column("project_id", sa.String(255), nullable=False),
        sa.Column("instance", sa.Text, nullable=False),
        sa.Column("block_device_mappings", sa.Text),
        sa.Column("created_at", sa.DateTime),
        sa.Column("updated_at", sa.DateTime),
    )
    op.create_index("build_requests_project_id_idx", "build_requests", ["project_id"])
