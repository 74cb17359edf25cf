"""The quota library on SQLite: limits layering, checks, and the 50-claim race."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db import migration
from saphira.db.api.models import (
    InstanceGroup,
    InstanceGroupMember,
    InstanceMapping,
    KeyPair,
    ProjectUserQuota,
    Quota,
    QuotaClass,
    QuotaLock,
    RequestSpec,
)
from saphira.db.api.quota import OverQuota, QuotaEngine, Scope, count_usage, count_usages
from saphira.db.engine import make_engine
from saphira.db.transactions import Database
from saphira.exception import DatabaseError
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


def _server(session: Session, uuid: str, user: str, vcpus: int, ram: int) -> None:
    session.add(InstanceMapping(instance_uuid=uuid, project_id="p", user_id=user))
    session.add(RequestSpec(instance_uuid=uuid, spec="{}", vcpus=vcpus, memory_mb=ram))


def test_a_users_claim_counts_the_project_and_the_user_in_one_statement(tmp_path: Path) -> None:
    """POST /servers checks the project's and the user's usage: one SELECT counts both
    (instances, cores, ram and groups by a CASE on the user; the user's key pairs)."""
    engine = make_engine(f"sqlite:///{tmp_path}/api.sqlite")
    migration.upgrade("api", engine)
    with Session(engine) as session:
        _server(session, "00000000-0000-0000-0000-000000000001", "u", 2, 512)
        _server(session, "00000000-0000-0000-0000-000000000002", "other", 4, 1024)
        group = InstanceGroup(uuid="00000000-0000-0000-0000-00000000000a", project_id="p",
                              user_id="other")  # fmt: skip
        session.add(group)
        session.flush()
        session.add(InstanceGroupMember(instance_uuid="x", group_id=group.id))
        session.add(KeyPair(name="k", user_id="u", fingerprint="f", public_key="x", type="ssh"))
        session.commit()
        usages: list[str] = []
        sa.event.listen(engine, "before_cursor_execute", lambda *args: usages.append(args[2]))
        project, user = count_usages(session, Scope("p", "u", group.uuid))
    engine.dispose()
    assert len([s for s in usages if "instance_mappings" in s]) == 1, usages
    assert project == {"instances": 2, "cores": 6, "ram": 1536, "server_groups": 1,
                       "key_pairs": 0, "server_group_members": 1}  # fmt: skip
    assert user == {"instances": 1, "cores": 2, "ram": 512, "server_groups": 0,
                    "key_pairs": 1, "server_group_members": 1}  # fmt: skip


def test_a_project_claim_counts_the_project_alone(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/api.sqlite")
    migration.upgrade("api", engine)
    with Session(engine) as session:
        _server(session, "00000000-0000-0000-0000-000000000001", "u", 2, 512)
        session.commit()
        project, user = count_usages(session, Scope("p"))
        assert count_usage(session, Scope("p", "u"))["key_pairs"] == 0
    engine.dispose()
    assert user is None
    assert project == {"instances": 1, "cores": 2, "ram": 512, "server_groups": 0,
                       "key_pairs": 0, "server_group_members": 0}  # fmt: skip


def test_a_projects_lock_row_is_made_sure_of_once_per_process(tmp_path: Path) -> None:
    """The second claim of a project takes its lock at once, without first opening a
    transaction to look for the lock row; a row gone beneath the process is made again."""
    engine = make_engine(f"sqlite:///{tmp_path}/api.sqlite")
    migration.upgrade("api", engine)
    db, quotas = Database(engine), QuotaEngine({"instances": 10})
    seen: list[str] = []
    sa.event.listen(engine, "before_cursor_execute", lambda *args: seen.append(args[2]))
    with quotas.reserve(db, Scope("p"), {"instances": 1}):
        pass
    first = [s for s in seen if "quota_locks" in s]
    seen.clear()
    with quotas.reserve(db, Scope("p"), {"instances": 1}):
        pass
    again = [s for s in seen if "quota_locks" in s]
    assert len(first) == 3 and len(again) == 1 and again[0].startswith("UPDATE"), again
    with db.session() as session:
        session.execute(sa.delete(QuotaLock))
    with pytest.raises(DatabaseError), quotas.reserve(db, Scope("p"), {"instances": 1}):
        pass
    with quotas.reserve(db, Scope("p"), {"instances": 1}):
        pass
    engine.dispose()


def test_a_users_check_reads_every_layer_of_limits_in_one_statement(tmp_path: Path) -> None:
    """Defaults < class 'default' < project < user, read by one UNION; usage by one more."""
    engine = make_engine(f"sqlite:///{tmp_path}/api.sqlite")
    migration.upgrade("api", engine)
    quotas = QuotaEngine({"instances": 10, "cores": 20, "ram": 4096})
    with Session(engine) as session:
        session.add(QuotaClass(class_name="default", resource="cores", hard_limit=8))
        session.add(Quota(project_id="p", resource="instances", hard_limit=4))
        session.add(ProjectUserQuota(project_id="p", user_id="u", resource="ram",
                                     hard_limit=1024))  # fmt: skip
        session.commit()
        seen: list[str] = []
        sa.event.listen(engine, "before_cursor_execute", lambda *args: seen.append(args[2]))
        quotas.check(session, Scope("p", "u"), {"instances": 4, "cores": 8, "ram": 1024})
        assert len(seen) == 2, seen
        for over in ({"instances": 5}, {"cores": 9}, {"ram": 1025}):
            with pytest.raises(OverQuota, match=next(iter(over))):
                quotas.check(session, Scope("p", "u"), over)
        quotas.check(session, Scope("p", "other"), {"ram": 4096})
    engine.dispose()


def test_a_projects_or_users_limits_are_read_in_one_statement(tmp_path: Path) -> None:
    """What check_absolute (a server's metadata_items at create) and the quota API read."""
    engine = make_engine(f"sqlite:///{tmp_path}/api.sqlite")
    migration.upgrade("api", engine)
    quotas = QuotaEngine({"instances": 10, "metadata_items": 128})
    with Session(engine) as session:
        session.add(QuotaClass(class_name="default", resource="metadata_items", hard_limit=5))
        session.add(Quota(project_id="p", resource="instances", hard_limit=4))
        session.add(ProjectUserQuota(project_id="p", user_id="u", resource="instances",
                                     hard_limit=2))  # fmt: skip
        session.commit()
        seen: list[str] = []
        sa.event.listen(engine, "before_cursor_execute", lambda *args: seen.append(args[2]))
        assert quotas.project_limits(session, "p") == {"instances": 4, "metadata_items": 5}
        assert len(seen) == 1, seen
        assert quotas.user_limits(session, "p", "u") == {"instances": 2, "metadata_items": 5}
        assert len(seen) == 2, seen
        with pytest.raises(OverQuota, match="metadata_items"):
            quotas.check_absolute(session, "p", {"metadata_items": 6})
    engine.dispose()
