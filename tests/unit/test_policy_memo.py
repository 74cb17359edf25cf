"""Pure rules' enforce decisions are remembered until the policy files change."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from oslo_policy import policy

import saphira.conf
from saphira.context import RequestContext
from saphira.exception import Forbidden
from saphira.policy import Enforcer
from saphira.policy_memo import MAX_DECISIONS, Decisions

GET_PROJECT = "identity:get_project"  # admin, or a reader of the target project
LIST_USERS = "identity:list_users"  # admin only


def _caller(*roles: str, project: str = "p1") -> RequestContext:
    return RequestContext(user_id="u", project_id=project, roles=roles)


def _allowed(enforcer: Enforcer, context: RequestContext, rule: str, project: str) -> bool:
    try:
        enforcer.enforce(context, rule, {"target.project.id": project})
    except Forbidden:
        return False
    return True


def _evaluated(enforcer: Enforcer) -> int:
    return int(enforcer._enforcer.decisions.evaluated)


@pytest.fixture
def enforcer(tmp_path: Path) -> Enforcer:
    return Enforcer(saphira.conf.load(["--config-dir", str(tmp_path)]))


def test_the_same_call_is_evaluated_once(enforcer: Enforcer) -> None:
    before = _evaluated(enforcer)
    for _ in range(3):
        assert _allowed(enforcer, _caller("reader"), GET_PROJECT, "p1")
        assert enforcer.is_admin(_caller("reader")) is False
    assert _evaluated(enforcer) == before + 2


def test_a_different_target_project_is_decided_afresh(enforcer: Enforcer) -> None:
    assert _allowed(enforcer, _caller("reader"), GET_PROJECT, "p1")
    assert not _allowed(enforcer, _caller("reader"), GET_PROJECT, "p2")


def test_a_different_role_is_decided_afresh(enforcer: Enforcer) -> None:
    assert _allowed(enforcer, _caller("admin"), LIST_USERS, "p1")
    assert not _allowed(enforcer, _caller("member"), LIST_USERS, "p1")
    assert not enforcer.is_admin(_caller("member"))
    assert enforcer.is_admin(_caller("admin"))


def test_a_changed_policy_file_is_decided_afresh(enforcer: Enforcer, tmp_path: Path) -> None:
    assert _allowed(enforcer, _caller("reader"), GET_PROJECT, "p1")
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(yaml.safe_dump({GET_PROJECT: "role:admin"}), encoding="utf-8")
    os.utime(policy_file, ns=(3 * 10**18, 3 * 10**18))
    assert not _allowed(enforcer, _caller("reader"), GET_PROJECT, "p1")


def _rules(rules: Mapping[str, str]) -> Decisions:
    return Decisions(policy.Rules.from_dict(dict(rules)))


def test_only_rules_of_pure_checks_are_remembered() -> None:
    decisions = _rules(
        {
            "plain": "(role:a or project_id:%(p)s) and not rule:other and @",
            "other": "! or 'x':%(name)s",
            "remote": "role:a or http://127.0.0.1:9/check",
            "through": "rule:remote",
            "loop": "rule:loop",
            "dangling": "rule:nowhere",
        }
    )
    assert decisions.pure("plain") and decisions.pure("other")
    for rule in ("remote", "through", "loop", "dangling", "unknown"):
        assert not decisions.pure(rule), rule


def _decide(decisions: Decisions, rule: str, target: Mapping[str, Any]) -> None:
    decisions.decide(rule, target, {"roles": ["a"]}, lambda: True)


def test_an_impure_rule_or_an_unhashable_target_is_evaluated_every_time() -> None:
    decisions = _rules({"plain": "role:a", "remote": "http://127.0.0.1:9/check"})
    for _ in range(2):
        _decide(decisions, "remote", {"p": "1"})
        _decide(decisions, "plain", {"p": {"nested": "1"}})
    assert decisions.evaluated == 4 and len(decisions) == 0


def test_the_decisions_are_bounded() -> None:
    decisions = _rules({"plain": "role:a"})
    for number in range(MAX_DECISIONS + 1):
        _decide(decisions, "plain", {"p": str(number)})
    assert 0 < len(decisions) <= MAX_DECISIONS
