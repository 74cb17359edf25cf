"""The policy enforcer re-reads policy.yaml and policy.d only when they change."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

import saphira.conf
from saphira.context import RequestContext
from saphira.exception import Forbidden
from saphira.policy import Enforcer

RULE = "identity:get_user"
TARGET = {"target.user.id": "m"}


def _member() -> RequestContext:
    """A new request each time (its own request id), as the API middleware makes them."""
    return RequestContext(user_id="m", project_id="p1", roles=("member", "reader"))


def _allowed(enforcer: Enforcer) -> bool:
    try:
        enforcer.enforce(_member(), RULE, TARGET)
    except Forbidden:
        return False
    return True


def _reads(enforcer: Enforcer) -> int:
    return int(enforcer._enforcer.files_read)


def _write(path: Path, rules: dict[str, str], mtime: int) -> None:
    path.write_text(yaml.safe_dump(rules), encoding="utf-8")
    os.utime(path, ns=(mtime, mtime))  # distinct, whatever the file system's clock tick


@pytest.fixture
def enforcer(tmp_path: Path) -> Enforcer:
    """policy.yaml and policy.d are looked for in --config-dir, as next to saphira.conf."""
    return Enforcer(saphira.conf.load(["--config-dir", str(tmp_path)]))


def test_unchanged_files_are_not_read_again_per_request(enforcer: Enforcer) -> None:
    before = _reads(enforcer)
    for _ in range(5):
        assert _allowed(enforcer)
        assert enforcer.is_admin(_member()) is False
    assert _reads(enforcer) == before


def test_a_new_changed_or_removed_policy_file_applies_at_the_next_request(
    enforcer: Enforcer, tmp_path: Path
) -> None:
    policy_file, before = tmp_path / "policy.yaml", _reads(enforcer)
    _write(policy_file, {RULE: "role:admin"}, 1_000_000_000_000_000_000)
    assert not _allowed(enforcer)
    assert _allowed(enforcer) is False and _reads(enforcer) == before + 1
    _write(policy_file, {RULE: "user_id:%(target.user.id)s"}, 1_000_000_002_000_000_000)
    assert _allowed(enforcer)
    assert _reads(enforcer) == before + 2
    policy_file.unlink()
    _allowed(enforcer)
    assert _reads(enforcer) == before + 3


def test_a_file_dropped_into_policy_d_applies_at_the_next_request(
    enforcer: Enforcer, tmp_path: Path
) -> None:
    (tmp_path / "policy.d").mkdir()
    assert _allowed(enforcer)
    _write(tmp_path / "policy.d" / "narrow.yaml", {RULE: "role:admin"}, 2_000_000_000_000_000_000)
    assert not _allowed(enforcer)


def test_one_request_looks_at_the_files_once(enforcer: Enforcer, tmp_path: Path) -> None:
    """Within one request (one id) a changed file waits for the next request."""
    context = _member()
    enforcer.enforce(context, RULE, TARGET)
    _write(tmp_path / "policy.yaml", {RULE: "role:admin"}, 3_000_000_000_000_000_000)
    enforcer.enforce(context, RULE, TARGET)  # the same request: not looked at again
    assert not _allowed(enforcer)
