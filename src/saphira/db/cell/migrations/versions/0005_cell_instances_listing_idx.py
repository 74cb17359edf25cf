"""Instances: an index that answers a project's default listing on its own.

A project's GET /servers/detail asks its cell for ``WHERE project_id = ? AND
deleted = 0 ORDER BY created_at DESC, uuid LIMIT n``. With only
(project_id, deleted) SQLite looked up every row of the project in the table
and sorted them all: 20 ms of a page of 1,000 among 10,000 servers. With
(project_id, deleted, created_at, uuid) it walks the index backwards and stops
after the page, reading no table row (about 1 ms).

Revision ID: cell_0005
Revises: cell_0004
"""

from __future__ import annotations

from alembic import op

revision = "cell_0005"
down_revision = "cell_0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "instances_project_id_deleted_created_at_uuid_idx", "instances",
        ["project_id", "deleted", "created_at", "uuid"],
    )  # fmt: skip


def downgrade() -> None:
    op.drop_index("instances_project_id_deleted_created_at_uuid_idx", "instances")
