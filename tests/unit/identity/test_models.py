"""The identity migration creates exactly the schema the models describe."""

from __future__ import annotations

from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

import saphira.conf
from saphira.db import migration
from saphira.db.engine import make_engine
from saphira.db.identity import database_url, sync
from saphira.db.identity.models import Base


def test_migration_matches_models(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/k.sqlite")
    sync(engine)
    sync(engine)  # idempotent
    assert migration.current("identity", engine) == migration.head("identity")
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []
    engine.dispose()


def test_default_url_is_sqlite_under_state_path(tmp_path: Path) -> None:
    conf = saphira.conf.load(overrides={"DEFAULT": {"state_path": str(tmp_path)}})
    assert database_url(conf) == f"sqlite:///{tmp_path}/keystone.sqlite"
    conf.set_override("connection", "postgresql+psycopg://u:p@h/k", group="identity_database")
    assert database_url(conf) == "postgresql+psycopg://u:p@h/k"
