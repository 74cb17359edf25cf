"""The identity database: Keystone's data (domains, projects, users, roles,
assignments, catalog, revocation events) in its own Alembic history.

It is its own database so a deployment can point it at the same server as the
API database or at a separate one, as Keystone and Nova are separate.
"""

from __future__ import annotations

from oslo_config import cfg
from sqlalchemy.engine import Engine

from saphira.db import migration, urls


def database_url(conf: cfg.ConfigOpts) -> str:
    return urls.database_url(conf, "identity_database")


def make_identity_engine(conf: cfg.ConfigOpts) -> Engine:
    return urls.make_group_engine(conf, "identity_database")


def sync(engine: Engine) -> None:
    """Bring the identity schema to head; idempotent."""
    migration.upgrade("identity", engine)
