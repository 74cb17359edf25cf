"""The 50-claim quota race on real PostgreSQL and MariaDB: exactly 10 land."""

from __future__ import annotations

from saphira.db.engine import make_engine
from tests.integration.db.conftest import CreateDatabase
from tests.unit.db.quota_race import CLAIMS, LIMIT, race


def test_fifty_concurrent_claims_admit_exactly_ten(
    create_database: CreateDatabase, prefix: str
) -> None:
    engine = make_engine(create_database(f"{prefix}_api"))
    try:
        assert race(engine) == (LIMIT, CLAIMS - LIMIT, LIMIT)
    finally:
        engine.dispose()
