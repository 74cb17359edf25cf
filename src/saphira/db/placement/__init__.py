"""The placement database: providers, inventories, consumers, allocations,
custom classes and traits, in its own Alembic history (Placement is its own
service with its own database, as in OpenStack).

Writers on SQLite start with BEGIN IMMEDIATE: a deferred transaction that
read first and writes later fails at once ("database is locked") when
another thread wrote in between, whatever the busy timeout.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from oslo_config import cfg
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from saphira.db import migration, urls


def database_url(conf: cfg.ConfigOpts) -> str:
    return urls.database_url(conf, "placement_database")


def make_placement_engine(conf: cfg.ConfigOpts) -> Engine:
    return urls.make_group_engine(conf, "placement_database")


def sync(engine: Engine) -> None:
    """Bring the placement schema to head; idempotent."""
    migration.upgrade("placement", engine)


class Database:
    """Sessions on one engine: ``reader()`` and ``writer()`` transactions."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        self.is_sqlite = engine.dialect.name == "sqlite"

    @contextmanager
    def reader(self) -> Iterator[Session]:
        with self._sessions() as session:  # closing ends the transaction, objects stay loaded
            yield session

    @contextmanager
    def writer(self) -> Iterator[Session]:
        """One transaction, committed on success, rolled back on any error."""
        with self._sessions() as session:
            if self.is_sqlite:
                session.execute(sa.text("BEGIN IMMEDIATE"))
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise


__all__ = ["Database", "database_url", "make_placement_engine", "sync"]
