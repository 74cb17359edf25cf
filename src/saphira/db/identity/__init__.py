"""The identity database: Keystone's data (domains, projects, users, roles,
assignments, catalog, revocation events) in its own Alembic history.

It is its own database so a deployment can point it at the same server as the
API database or at a separate one, as Keystone and Nova are separate.
"""

from __future__ import annotations

import os

from oslo_config import cfg
from sqlalchemy.engine import Engine

from saphira.db import migration
from saphira.db.engine import make_engine

SQLITE_NAME = "keystone.sqlite"


def database_url(conf: cfg.ConfigOpts) -> str:
    """[identity_database] connection, or the embedded SQLite file under state_path."""
    url: str | None = conf.identity_database.connection
    if url:
        return url
    path = os.path.join(os.path.abspath(conf.state_path), SQLITE_NAME)
    return f"sqlite:///{path}"


def make_identity_engine(conf: cfg.ConfigOpts) -> Engine:
    return make_engine(database_url(conf), connect_timeout=conf.identity_database.connect_timeout)


def sync(engine: Engine) -> None:
    """Bring the identity schema to head; idempotent."""
    migration.upgrade("identity", engine)
