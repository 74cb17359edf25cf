"""Cell tables discovery needs: services and compute_nodes.

Revision ID: cell_0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "cell_0001"
down_revision = None
branch_labels = None
depends_on = None


def _soft_delete() -> list[sa.Column[object]]:
    return [
        sa.Column("created_at", sa.DateTime),
        sa.Column("updated_at", sa.DateTime),
        sa.Column("deleted_at", sa.DateTime),
        sa.Column("deleted", sa.Integer, nullable=False),
    ]


def _counters(*names: str) -> list[sa.Column[object]]:
    return [sa.Column(name, sa.Integer, nullable=False) for name in names]


def upgrade() -> None:
    op.create_table(
        "services",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("uuid", sa.String(36), nullable=False, unique=True),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("binary", sa.String(255), nullable=False),
        sa.Column("topic", sa.String(255)),
        sa.Column("report_count", sa.Integer, nullable=False),
        sa.Column("disabled", sa.Boolean, nullable=False),
        sa.Column("disabled_reason", sa.String(255)),
        sa.Column("forced_down", sa.Boolean, nullable=False),
        sa.Column("last_seen_up", sa.DateTime),
        sa.Column("version", sa.Integer, nullable=False),
        *_soft_delete(),
        sa.UniqueConstraint("host", "binary", "deleted", name="uniq_services0host0binary0deleted"),
        sa.UniqueConstraint("host", "topic", "deleted", name="uniq_services0host0topic0deleted"),
    )
    op.create_table(
        "compute_nodes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("uuid", sa.String(36), nullable=False, unique=True),
        sa.Column("service_id", sa.Integer, sa.ForeignKey("services.id")),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("hypervisor_hostname", sa.String(255), nullable=False),
        sa.Column("hypervisor_type", sa.String(255), nullable=False),
        sa.Column("hypervisor_version", sa.Integer, nullable=False),
        sa.Column("host_ip", sa.String(39)),
        *_counters("vcpus", "memory_mb", "local_gb", "vcpus_used", "memory_mb_used"),
        *_counters("local_gb_used"),
        sa.Column("cpu_info", sa.Text, nullable=False),
        sa.Column("mapped", sa.Integer, nullable=False),
        *_soft_delete(),
        sa.UniqueConstraint(
            "host", "hypervisor_hostname", "deleted", name="uniq_compute_nodes0host0node0deleted"
        ),
    )
    op.create_index("ix_compute_nodes_service_id", "compute_nodes", ["service_id"])
