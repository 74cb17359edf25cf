"""The quota library on SQLite: limits layering, checks, and the 50-claim race."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from saphira.db import migration
from saphira.db.api.models import KeyPair, ProjectUserQuota, Quota
from saphira.db.api.quota import OverQuota, QuotaEngine, Scope
from saphira.db.engine import make_engine
from tests.unit.db.quota_race import CLAIMS, LIMIT, race


def test_fifty_concurrent_claims_against_ten_admit_exactly_ten(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/api.sqlite")
    try:
        assert race(engine) == (LIMIT, CLAIMS - LIMIT, LIMIT)
    finally:
        engine.dispose()


def test_limits_layer_and_user_quota_binds(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/api.sqlite")
    migration.upgrade("api", engine)
    quotas = QuotaEngine({"key_pairs": 3, "instances": 10})
    with Session(engine) as session:
        session.add(Quota(project_id="p", resource="instances", hard_limit=4))
        session.add(ProjectUserQuota(project_id="p", user_id="u", resource="key_pairs",
                                     hard_limit=1))  # fmt: skip
        session.add(KeyPair(name="k", user_id="u", fingerprint="f", public_key="x", type="ssh"))
        session.commit()
        assert quotas.project_limits(session, "p")["instances"] == 4
        assert quotas.user_limits(session, "p", "u")["key_pairs"] == 1
        with pytest.raises(OverQuota, match="key_pairs"):
            quotas.check(session, Scope("p", "u"), {"key_pairs": 1})
        quotas.check(session, Scope("p", "other"), {"key_pairs": 1})
    engine.dispose()
