"""50 concurrent instance claims against a quota of 10: exactly 10 must land."""

from __future__ import annotations

import json
import threading
import uuid

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from saphira.db import migration
from saphira.db.api.models import InstanceMapping, RequestSpec
from saphira.db.api.quota import OverQuota, QuotaEngine, Scope
from saphira.db.transactions import Database

CLAIMS = 50
LIMIT = 10


def race(engine: Engine) -> tuple[int, int, int]:
    """(admitted, refused, rows): what 50 threads got, and what the database holds."""
    migration.upgrade("api", engine)
    quotas = QuotaEngine({"instances": LIMIT, "cores": 1000, "ram": 10**6})
    db = Database(engine)
    scope = Scope("project-a", "user-a")
    start = threading.Barrier(CLAIMS)
    results: list[str] = []
    lock = threading.Lock()

    def claim() -> None:
        start.wait()
        outcome = "admitted"
        try:
            with quotas.reserve(db, scope, {"instances": 1, "cores": 1, "ram": 64}) as s:
                instance = str(uuid.uuid4())
                s.add(InstanceMapping(instance_uuid=instance, project_id="project-a",
                                      user_id="user-a", queued_for_delete=False))  # fmt: skip
                s.add(RequestSpec(instance_uuid=instance, spec=json.dumps({}), vcpus=1,
                                  memory_mb=64))  # fmt: skip
        except OverQuota:
            outcome = "refused"
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=claim) for _ in range(CLAIMS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with engine.connect() as conn:
        rows = int(conn.scalar(sa.select(sa.func.count()).select_from(InstanceMapping)) or 0)
    return results.count("admitted"), results.count("refused"), rows
