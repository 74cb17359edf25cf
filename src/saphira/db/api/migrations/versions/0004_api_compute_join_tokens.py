"""Join tokens: short-lived, single-use secrets a new compute node redeems.

Revision ID: api_0004
Revises: api_0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "api_0004"
down_revision = "api_0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "compute_join_tokens",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("secret_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("expires_at", sa.DateTime, nullable=False),
        sa.Column("used_at", sa.DateTime),
        sa.Column("used_by", sa.String(255)),
    )
