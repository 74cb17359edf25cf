"""Engines for every backend we support, and errors a person can read.

SQLite is the embedded default: WAL so readers never block the writer, a busy
timeout instead of "database is locked" under concurrent threads, and foreign
keys switched on (SQLite leaves them off). PostgreSQL (psycopg 3) and MariaDB
(PyMySQL) get pre-ping so a server restart costs one retry, not an error.
"""

from __future__ import annotations

import os
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event, exc
from sqlalchemy.engine import URL, Engine, make_url

from saphira.db import sqlite_writers
from saphira.exception import DatabaseError

MASK = "****"


def mask_url(url: str | URL) -> str:
    """Render a URL with its password replaced, as nova-manage prints it."""
    try:
        parsed = make_url(url) if isinstance(url, str) else url
    except exc.ArgumentError:
        return str(url)
    # SQLAlchemy masks as "***"; the install guide shows "****".
    return parsed.render_as_string(hide_password=True).replace(":***@", f":{MASK}@", 1)


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cursor = dbapi_conn.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def make_engine(url: str, *, connect_timeout: int = 10, max_overflow: int | None = None) -> Engine:
    """Create an engine, or raise DatabaseError saying what is wrong with the URL.

    ``max_overflow``: connections opened past the pool's five when they are all
    in use (closed again when returned); SQLAlchemy's default (10) if None.
    """
    try:
        parsed = make_url(url)
    except exc.ArgumentError as error:
        raise DatabaseError(f"invalid database URL {mask_url(url)!r}: {error}") from None
    kwargs: dict[str, Any] = {"future": True}
    if max_overflow is not None:
        kwargs["max_overflow"] = max_overflow
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            os.makedirs(os.path.dirname(os.path.abspath(parsed.database)), exist_ok=True)
        kwargs["connect_args"] = {
            "check_same_thread": False,
            "timeout": sqlite_writers.WAIT,
            "factory": sqlite_writers.QueuedWriterConnection,
        }
    elif backend == "postgresql":
        kwargs.update(pool_pre_ping=True, connect_args={"connect_timeout": connect_timeout})
    elif backend in ("mysql", "mariadb"):
        kwargs.update(
            pool_pre_ping=True,
            pool_recycle=3600,
            connect_args={"connect_timeout": connect_timeout, "charset": "utf8mb4"},
        )
    try:
        engine = sa.create_engine(parsed, **kwargs)
    except (exc.ArgumentError, exc.NoSuchModuleError) as error:
        raise DatabaseError(f"unsupported database URL {mask_url(url)!r}: {error}") from None
    except ImportError as error:
        raise DatabaseError(f"no driver for {mask_url(url)!r}: {error}") from None
    if backend == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "before_cursor_execute", sqlite_writers.before_cursor_execute)
    return engine


def describe_error(url: str | URL, error: BaseException) -> str:
    """One line: which database, and the driver's own first line of why."""
    cause = getattr(error, "orig", None) or error
    first = (str(cause).strip().splitlines() or [type(cause).__name__])[0]
    return f"cannot use database {mask_url(url)}: {first}"


def check_connection(engine: Engine) -> None:
    """Connect once; turn any failure into a one-line DatabaseError.

    A bare connection, not a ``transactions.Database`` session: a ping is no unit of work.
    """
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
    except exc.SQLAlchemyError as error:
        raise DatabaseError(describe_error(engine.url, error)) from None
