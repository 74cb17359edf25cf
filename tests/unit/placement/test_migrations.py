"""The placement schema: Alembic history reaches head and matches the models."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from saphira.db import migration
from saphira.db.engine import make_engine
from saphira.db.placement import sync
from saphira.db.placement.models import Base


def test_sync_is_idempotent_and_matches_models(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'placement.sqlite'}")
    try:
        sync(engine)
        sync(engine)
        assert migration.current("placement", engine) == migration.head("placement")
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
            assert diff == []
            assert "resource_providers" in sa.inspect(conn).get_table_names()
    finally:
        engine.dispose()
