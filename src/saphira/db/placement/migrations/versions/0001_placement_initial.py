"""The placement schema as of the first release.

Revision ID: placement_0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from saphira.db.placement.models import NAME, UUID, Timestamp

revision = "placement_0001"
down_revision = None
branch_labels = None
depends_on = None

_RP = "resource_providers.id"


def upgrade() -> None:
    op.create_table(
        "resource_providers",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("uuid", UUID, nullable=False, unique=True),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
        sa.Column("generation", sa.Integer, nullable=False),
        sa.Column("root_provider_id", sa.Integer, sa.ForeignKey(_RP), index=True),
        sa.Column("parent_provider_id", sa.Integer, sa.ForeignKey(_RP), index=True),
        sa.Column("updated_at", Timestamp, nullable=False),
    )
    op.create_table(
        "inventories",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("resource_provider_id", sa.Integer, sa.ForeignKey(_RP), nullable=False),
        sa.Column("resource_class", NAME, nullable=False),
        *(
            sa.Column(name, sa.BigInteger, nullable=False)
            for name in ("total", "reserved", "min_unit", "max_unit", "step_size")
        ),
        sa.Column("allocation_ratio", sa.Float, nullable=False),
        sa.UniqueConstraint("resource_provider_id", "resource_class", name="uq_inventory_rp_rc"),
    )
    op.create_table(
        "consumers",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("uuid", UUID, nullable=False, unique=True),
        sa.Column("project_id", NAME, nullable=False, index=True),
        sa.Column("user_id", NAME, nullable=False),
        sa.Column("generation", sa.Integer, nullable=False),
    )
    op.create_table(
        "allocations",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("resource_provider_id", sa.Integer, sa.ForeignKey(_RP), nullable=False),
        sa.Column("consumer_id", UUID, nullable=False),
        sa.Column("resource_class", NAME, nullable=False),
        sa.Column("used", sa.BigInteger, nullable=False),
        sa.Index("ix_allocations_rp_rc", "resource_provider_id", "resource_class"),
        sa.Index("ix_allocations_consumer", "consumer_id"),
    )
    op.create_table("resource_classes", sa.Column("name", NAME, primary_key=True))
    op.create_table("traits", sa.Column("name", NAME, primary_key=True))
    op.create_table(
        "resource_provider_traits",
        sa.Column("resource_provider_id", sa.Integer, sa.ForeignKey(_RP), primary_key=True),
        sa.Column("trait", NAME, primary_key=True, index=True),
    )
    op.create_table(
        "resource_provider_aggregates",
        sa.Column("resource_provider_id", sa.Integer, sa.ForeignKey(_RP), primary_key=True),
        sa.Column("aggregate", UUID, primary_key=True, index=True),
    )
