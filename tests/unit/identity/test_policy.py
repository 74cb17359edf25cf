"""The default policy: admin everything, reader reads its project, member its own user."""

from __future__ import annotations

import pytest

import saphira.conf
from saphira.context import RequestContext
from saphira.exception import Forbidden
from saphira.policy import Enforcer, list_rules

ADMIN = RequestContext(user_id="a", project_id="pa", roles=("admin", "member", "reader"))
MEMBER = RequestContext(user_id="m", project_id="p1", roles=("member", "reader"))
READER = RequestContext(user_id="r", project_id="p1", roles=("reader",))


@pytest.fixture(scope="module")
def enforcer() -> Enforcer:
    conf = saphira.conf.load()
    return Enforcer(conf)


@pytest.mark.parametrize(
    ("context", "rule", "target", "allowed"),
    [
        (ADMIN, "identity:create_user", {}, True),
        (ADMIN, "identity:get_project", {"target.project.id": "p1"}, True),
        (MEMBER, "identity:create_user", {}, False),
        (MEMBER, "identity:create_project", {}, False),
        (MEMBER, "identity:create_role", {}, False),
        (MEMBER, "identity:list_projects", {}, False),
        (MEMBER, "identity:get_project", {"target.project.id": "p1"}, True),
        (MEMBER, "identity:get_project", {"target.project.id": "p2"}, False),
        (MEMBER, "identity:get_user", {"target.user.id": "m"}, True),
        (MEMBER, "identity:get_user", {"target.user.id": "a"}, False),
        (MEMBER, "identity:change_password", {"target.user.id": "m"}, True),
        (MEMBER, "identity:change_password", {"target.user.id": "a"}, False),
        (READER, "identity:get_project", {"target.project.id": "p1"}, True),
        (READER, "identity:update_project", {"target.project.id": "p1"}, False),
        (READER, "identity:create_grant", {"target.project.id": "p1"}, False),
        (READER, "identity:list_role_assignments", {"target.project.id": "p1"}, True),
        (READER, "identity:list_role_assignments", {"target.project.id": "p2"}, False),
    ],
)
def test_defaults(
    enforcer: Enforcer, context: RequestContext, rule: str, target: dict[str, str], allowed: bool
) -> None:
    if allowed:
        enforcer.enforce(context, rule, target)
    else:
        with pytest.raises(Forbidden):
            enforcer.enforce(context, rule, target)


def test_every_rule_is_documented_and_unique() -> None:
    names = [rule.name for rule in list_rules()]
    assert len(names) == len(set(names))
    assert "identity:validate_token" in names
