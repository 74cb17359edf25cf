"""Many threads claiming one provider on real PostgreSQL and MariaDB never oversubscribe."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from saphira import exception
from saphira.db.engine import make_engine
from saphira.db.placement import Database, sync
from saphira.placement import allocations, inventories, providers, usages
from saphira.placement.allocations import ConsumerClaim
from tests.integration.db.conftest import CreateDatabase

pytestmark = pytest.mark.integration
THREADS = 16
CLAIMS = 60
CAPACITY = 20


def test_concurrent_claims(create_database: CreateDatabase, prefix: str) -> None:
    engine = make_engine(create_database(prefix))
    try:
        sync(engine)
        sync(engine)  # idempotent
        db = Database(engine)
        with db.writer() as session:
            rp = providers.create(session, "host")
            inventories.replace_all(
                session, rp, 0, {"VCPU": {"total": CAPACITY // 2, "allocation_ratio": 2.0}}
            )
            rp_uuid, rp_id = rp.uuid, rp.id

        def claim(_: int) -> bool:
            try:
                allocations.write(
                    db,
                    [ConsumerClaim(str(uuid.uuid4()), "p", "u", {rp_uuid: {"VCPU": 1}}, None)],
                    retries=50,
                )
            except exception.Conflict:
                return False
            return True

        with ThreadPoolExecutor(max_workers=THREADS) as pool:
            results = list(pool.map(claim, range(CLAIMS)))
        with db.reader() as session:
            used = usages.of_provider(session, rp_id)
            generation = providers.get(session, rp_uuid).generation
        assert used == {"VCPU": sum(results)}
        # A claim only loses a race to a claim that won, so every unit is granted exactly once.
        assert sum(results) == CAPACITY
        assert generation == 1 + sum(results)
    finally:
        engine.dispose()
