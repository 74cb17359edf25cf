"""The identity schema as of the first release.

Revision ID: identity_0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from saphira.db.identity.models import ID, Timestamp

revision = "identity_0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "domain",
        sa.Column("id", ID, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("description", sa.Text),
        sa.Column("enabled", sa.Boolean, nullable=False),
        sa.Column("extra", sa.Text),
    )
    op.create_table(
        "project",
        sa.Column("id", ID, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("domain_id", ID, sa.ForeignKey("domain.id"), nullable=False),
        sa.Column("parent_id", ID, sa.ForeignKey("project.id")),
        sa.Column("description", sa.Text),
        sa.Column("enabled", sa.Boolean, nullable=False),
        sa.Column("extra", sa.Text),
        sa.UniqueConstraint("domain_id", "name", name="uq_project_domain_name"),
    )
    op.create_table(
        "user",
        sa.Column("id", ID, primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("domain_id", ID, sa.ForeignKey("domain.id"), nullable=False),
        sa.Column("default_project_id", ID),
        sa.Column("password_hash", sa.String(255)),
        sa.Column("enabled", sa.Boolean, nullable=False),
        sa.Column("extra", sa.Text),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.UniqueConstraint("domain_id", "name", name="uq_user_domain_name"),
    )
    op.create_table(
        "role",
        sa.Column("id", ID, primary_key=True),
        sa.Column("name", sa.String(255), nullable=False, unique=True),
        sa.Column("description", sa.Text),
    )
    op.create_table(
        "implied_role",
        sa.Column(
            "prior_role_id", ID, sa.ForeignKey("role.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column(
            "implied_role_id", ID, sa.ForeignKey("role.id", ondelete="CASCADE"), primary_key=True
        ),
    )
    op.create_table(
        "assignment",
        sa.Column("type", sa.String(16), primary_key=True),
        sa.Column("actor_id", ID, primary_key=True),
        sa.Column("target_id", ID, primary_key=True),
        sa.Column("role_id", ID, sa.ForeignKey("role.id", ondelete="CASCADE"), primary_key=True),
    )
    op.create_index("ix_assignment_actor", "assignment", ["actor_id"])
    op.create_table(
        "region",
        sa.Column("id", sa.String(255), primary_key=True),
        sa.Column("description", sa.Text),
        sa.Column("parent_region_id", sa.String(255)),
    )
    op.create_table(
        "service",
        sa.Column("id", ID, primary_key=True),
        sa.Column("type", sa.String(255), nullable=False),
        sa.Column("name", sa.String(255)),
        sa.Column("description", sa.Text),
        sa.Column("enabled", sa.Boolean, nullable=False),
    )
    op.create_table(
        "endpoint",
        sa.Column("id", ID, primary_key=True),
        sa.Column(
            "service_id", ID, sa.ForeignKey("service.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("interface", sa.String(8), nullable=False),
        sa.Column("region_id", sa.String(255), sa.ForeignKey("region.id")),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("enabled", sa.Boolean, nullable=False),
    )
    op.create_table(
        "revocation_event",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("audit_id", sa.String(32)),
        sa.Column("user_id", ID),
        sa.Column("issued_before", Timestamp, nullable=False),
        sa.Column("revoked_at", Timestamp, nullable=False),
    )
    op.create_index("ix_revocation_event_audit_id", "revocation_event", ["audit_id"])
    op.create_index("ix_revocation_event_user_id", "revocation_event", ["user_id"])
    op.create_index("ix_revocation_event_revoked_at", "revocation_event", ["revoked_at"])
