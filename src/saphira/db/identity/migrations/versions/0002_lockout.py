"""Failed password logins per user, for Keystone's [security_compliance] lockout.

Revision ID: identity_0002
Revises: identity_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from saphira.db.identity.models import Timestamp

revision = "identity_0002"
down_revision = "identity_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("user", sa.Column("failed_auth_count", sa.Integer))
    op.add_column("user", sa.Column("failed_auth_at", Timestamp))
