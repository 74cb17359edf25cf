"""Each kind's migrations build exactly the tables its models describe."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy.orm import DeclarativeBase

from saphira.db import migration
from saphira.db.api.models import Base as ApiBase
from saphira.db.cell.models import Base as CellBase
from saphira.db.engine import make_engine


@pytest.mark.parametrize(("kind", "base"), [("api", ApiBase), ("cell", CellBase)])
def test_migrations_match_models(kind: str, base: type[DeclarativeBase], tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/{kind}.sqlite")
    migration.upgrade(kind, engine)
    migration.upgrade(kind, engine)  # a second sync is a no-op
    assert migration.current(kind, engine) == migration.head(kind)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), base.metadata)
    engine.dispose()
    assert diff == []
