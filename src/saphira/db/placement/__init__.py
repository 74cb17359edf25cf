"""The placement database: providers, inventories, consumers, allocations,
custom classes and traits, in its own Alembic history (Placement is its own
service with its own database, as in OpenStack). Sessions come from
``saphira.db.transactions`` (BEGIN IMMEDIATE writers on SQLite).
"""

from __future__ import annotations

from oslo_config import cfg
from sqlalchemy.engine import Engine

from saphira.db import migration, transactions, urls


def database_url(conf: cfg.ConfigOpts) -> str:
    return urls.database_url(conf, "placement_database")


def make_placement_engine(conf: cfg.ConfigOpts) -> Engine:
    return urls.make_group_engine(conf, "placement_database")


def sync(engine: Engine) -> None:
    """Bring the placement schema to head; idempotent."""
    migration.upgrade("placement", engine)


class Database(transactions.Database):
    """Placement keeps the server's own isolation level: its writes are
    compare-and-swap on provider generations, which hold under any level."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine, read_committed=False)


__all__ = ["Database", "database_url", "make_placement_engine", "sync"]
