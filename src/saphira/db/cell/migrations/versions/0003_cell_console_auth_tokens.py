"""Console authorization tokens, hashed (Nova's console_auth_tokens).

Revision ID: cell_0003
Revises: cell_0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "cell_0003"
down_revision = "cell_0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "console_auth_tokens",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("created_at", sa.DateTime),
        sa.Column("token_hash", sa.String(255), nullable=False),
        sa.Column("console_type", sa.String(255), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("port", sa.Integer, nullable=False),
        sa.Column("internal_access_path", sa.String(255)),
        sa.Column("instance_uuid", sa.String(36), nullable=False),
        sa.Column("access_url_base", sa.String(255)),
        sa.Column("expires", sa.Integer, nullable=False),
        sa.UniqueConstraint("token_hash", name="uniq_console_auth_tokens0token_hash"),
    )
    op.create_index(
        "console_auth_tokens_instance_uuid_idx", "console_auth_tokens", ["instance_uuid"]
    )
    op.create_index(
        "console_auth_tokens_host_expires_idx", "console_auth_tokens", ["host", "expires"]
    )


def downgrade() -> None:
    op.drop_table("console_auth_tokens")
