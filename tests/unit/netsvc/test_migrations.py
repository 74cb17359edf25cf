"""The network schema: Alembic history reaches head and matches the models."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from saphira.db import migration
from saphira.db.engine import make_engine
from saphira.db.network import models_ext, sync
from saphira.db.network.models import Base


def test_sync_is_idempotent_and_matches_models(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'neutron.sqlite'}")
    try:
        sync(engine)
        sync(engine)
        assert migration.current("network", engine) == migration.head("network")
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
            assert diff == []
            tables = set(sa.inspect(conn).get_table_names())
            assert {"networks", "ipallocations", models_ext.Agent.__tablename__} <= tables
    finally:
        engine.dispose()
