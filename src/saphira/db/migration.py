"""Run Alembic for one kind of database ("api", "cell" or "identity").

Each kind keeps its own migration history in ``saphira/db/<kind>/migrations``
(an Alembic script directory whose env.py uses the connection we hand it), so
a cell database never carries API tables and vice versa. Upgrades are
idempotent: running them twice is a no-op, as nova-manage's are.
"""

from __future__ import annotations

import os

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import exc
from sqlalchemy.engine import Engine

from saphira.db.engine import describe_error
from saphira.exception import DatabaseError

KINDS = ("api", "cell", "identity", "image", "placement", "network")


def _config(kind: str) -> Config:
    if kind not in KINDS:
        raise ValueError(f"unknown database kind {kind!r}")
    here = os.path.dirname(os.path.abspath(__file__))
    config = Config()
    config.set_main_option("script_location", os.path.join(here, kind, "migrations"))
    return config


def upgrade(kind: str, engine: Engine, revision: str = "head") -> None:
    """Bring the database to ``revision``; one-line DatabaseError on failure."""
    config = _config(kind)
    try:  # Alembic works on a Connection, not a Session: the one unit of work not a Database's
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, revision)
    except exc.SQLAlchemyError as error:
        raise DatabaseError(describe_error(engine.url, error)) from None


def current(kind: str, engine: Engine) -> str | None:
    """The revision the database is at, or None before the first sync."""
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    except exc.SQLAlchemyError as error:
        raise DatabaseError(describe_error(engine.url, error)) from None


def head(kind: str) -> str | None:
    return ScriptDirectory.from_config(_config(kind)).get_current_head()
