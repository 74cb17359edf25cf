"""Where the databases are, and sessions that fail in one readable line.

An empty ``connection`` is the embedded default: an SQLite file under
``state_path``, named as Nova names its databases. Every way a database can
fail (unreachable, wrong password, missing database, never synced) surfaces as
one DatabaseError with the password masked, so commands never print tracebacks.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from oslo_config import cfg
from sqlalchemy import exc
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.orm import Session

from saphira.db import migration
from saphira.db.engine import check_connection, describe_error, make_engine, mask_url
from saphira.db.transactions import Database
from saphira.db.urls import database_url
from saphira.exception import DatabaseError

_SYNC_HINT = {"api": "saphira-manage api_db sync", "cell": "saphira-manage db sync"}


def api_url(conf: cfg.ConfigOpts) -> str:
    """[api_database] connection, or sqlite:///$state_path/nova_api.sqlite."""
    return database_url(conf, "api_database")


def cell_url(conf: cfg.ConfigOpts) -> str:
    """[database] connection, or sqlite:///$state_path/nova.sqlite."""
    return database_url(conf, "database")


def cell0_url(url: str) -> str:
    """Nova's cell0 URL: the cell database's name suffixed with ``_cell0``.

    .../nova becomes .../nova_cell0; an SQLite nova.sqlite becomes
    nova_cell0.sqlite next to it, keeping the extension.
    """
    try:
        parsed = make_url(url)
    except exc.ArgumentError as error:
        raise DatabaseError(f"invalid database URL {mask_url(url)!r}: {error}") from None
    name = parsed.database
    if not name or name == ":memory:":
        raise DatabaseError(f"cannot derive a cell0 database from {mask_url(url)}: no database")
    if parsed.get_backend_name() == "sqlite":
        root, ext = os.path.splitext(name)
        name = f"{root}_cell0{ext}"
    else:
        name = f"{name}_cell0"
    return parsed.set(database=name).render_as_string(hide_password=False)


@contextmanager
def engine_for(url: str, conf: cfg.ConfigOpts | None = None) -> Iterator[Engine]:
    """An engine that is disposed afterwards; connect failures are one line."""
    timeout = conf.database.connect_timeout if conf is not None else 10
    try:
        engine = make_engine(url, connect_timeout=timeout)
    except OSError as error:  # SQLite: the state directory cannot be created
        raise DatabaseError(describe_error(url, error)) from None
    try:
        check_connection(engine)
        yield engine
    finally:
        engine.dispose()


@contextmanager
def session_for(kind: str, url: str, conf: cfg.ConfigOpts | None = None) -> Iterator[Session]:
    """A session on a synced database of ``kind``, committed on success.

    Refuses a database that was never synced, naming the command that syncs
    it, instead of failing later on a missing table.
    """
    with engine_for(url, conf) as engine:
        if migration.current(kind, engine) is None:
            raise DatabaseError(
                f"database {mask_url(url)} has no {kind} schema; run '{_SYNC_HINT[kind]}' first"
            )
        try:
            with Database(engine, read_committed=False).session() as session:
                yield session
        except exc.SQLAlchemyError as error:
            raise DatabaseError(describe_error(url, error)) from None
