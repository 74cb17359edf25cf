"""Alembic environment for the network database: runs on the connection we are given."""

from __future__ import annotations

from alembic import context

from saphira.db.network import models_ext  # noqa: F401  (its tables join the metadata)
from saphira.db.network.models import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
