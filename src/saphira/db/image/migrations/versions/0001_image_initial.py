"""The image schema as of the first release.

Revision ID: image_0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from saphira.db.image.models import ID, Timestamp

revision = "image_0001"
down_revision = None
branch_labels = None
depends_on = None


def _image_fk() -> sa.Column[str]:
    return sa.Column(
        "image_id", ID, sa.ForeignKey("images.id", ondelete="CASCADE"), primary_key=True
    )


def upgrade() -> None:
    op.create_table(
        "images",
        sa.Column("id", ID, primary_key=True),
        sa.Column("name", sa.String(255), index=True),
        sa.Column("status", sa.String(30), nullable=False, index=True),
        sa.Column("visibility", sa.String(20), nullable=False, index=True),
        sa.Column("owner", sa.String(255), index=True),
        sa.Column("protected", sa.Boolean, nullable=False),
        sa.Column("os_hidden", sa.Boolean, nullable=False),
        sa.Column("disk_format", sa.String(20)),
        sa.Column("container_format", sa.String(20)),
        sa.Column("size", sa.BigInteger),
        sa.Column("virtual_size", sa.BigInteger),
        sa.Column("checksum", sa.String(32)),
        sa.Column("os_hash_algo", sa.String(64)),
        sa.Column("os_hash_value", sa.String(128)),
        sa.Column("min_disk", sa.Integer, nullable=False),
        sa.Column("min_ram", sa.Integer, nullable=False),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.Column("updated_at", Timestamp, nullable=False),
    )
    op.create_table(
        "image_properties",
        _image_fk(),
        sa.Column("name", sa.String(255), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.create_table("image_tags", _image_fk(), sa.Column("value", sa.String(255), primary_key=True))
    op.create_table(
        "image_members",
        _image_fk(),
        sa.Column("member", sa.String(255), primary_key=True),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.Column("updated_at", Timestamp, nullable=False),
    )
