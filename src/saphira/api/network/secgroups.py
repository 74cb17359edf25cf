"""/v2.0/security-groups and /v2.0/security-group-rules.

Listing groups (like creating a port) gives the caller's project its default
group if it has none yet, as Neutron does, so ``security group list`` always
shows it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session
from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.network import crud
from saphira.api.network.app import Call, route
from saphira.api.network.attributes import (
    COMMON,
    Attr,
    anything,
    boolean,
    nullable,
    one_of,
    string,
    uuid_text,
)
from saphira.api.network.listing import Collection
from saphira.api.network.views import View
from saphira.api.network.views_ext import group_view, rule_view
from saphira.netsvc import access, errors, secgroups, sgrules

GROUP_SPEC: dict[str, Attr] = {**COMMON, "stateful": Attr(boolean)}
RULE_SPEC: dict[str, Attr] = {
    "description": COMMON["description"],
    "project_id": COMMON["project_id"],
    "tenant_id": COMMON["tenant_id"],
    "security_group_id": Attr(uuid_text, put=False, required=True),
    "direction": Attr(one_of("ingress", "egress"), put=False, required=True),
    "ethertype": Attr(anything, put=False),
    "protocol": Attr(anything, put=False),
    "port_range_min": Attr(anything, put=False),
    "port_range_max": Attr(anything, put=False),
    "remote_ip_prefix": Attr(nullable(string(255)), put=False),
    "remote_group_id": Attr(nullable(string(255)), put=False),  # a missing group is a 404
}
GROUPS = Collection(
    "security_groups",
    scalars=(
        "id",
        "name",
        "project_id",
        "stateful",
        "description",
        "created_at",
        "updated_at",
        "revision_number",
    ),
)
RULES = Collection(
    "security_group_rules",
    scalars=(
        "id",
        "security_group_id",
        "direction",
        "ethertype",
        "protocol",
        "port_range_min",
        "port_range_max",
        "remote_ip_prefix",
        "remote_group_id",
        "project_id",
        "description",
        "created_at",
        "updated_at",
        "revision_number",
    ),
)


def _ensure_default(call: Call) -> None:
    project = call.caller.project_id
    with call.reader() as session:
        if not project or secgroups.default_of(session, project) is not None:
            return
    with call.writer() as session:
        secgroups.ensure_default(session, project)


def _list_groups(call: Call) -> Response:
    _ensure_default(call)
    with call.reader() as session:
        views = [group_view(g) for g in session.scalars(access.security_groups(call.caller))]
    return crud.listed(
        call, GROUPS, views, lambda v: v, lambda m: errors.SecurityGroupNotFound(id=m)
    )


def _show_group(call: Call, group_id: str) -> Response:
    with call.reader() as session:
        view = group_view(access.security_group(session, call.caller, group_id))
    return crud.one(call, "security_group", view)


def _create_group(call: Call) -> Response:
    def make(session: Session, attrs: dict[str, Any]) -> View:
        return group_view(secgroups.create(session, call.caller, call.settings, attrs))

    return crud.created(call, "security_group", "security_groups", GROUP_SPEC, make)


def _update_group(call: Call, group_id: str) -> Response:
    def change(session: Session, attrs: dict[str, Any]) -> View:
        return group_view(secgroups.update(session, call.caller, group_id, attrs))

    return crud.updated(call, "security_group", GROUP_SPEC, change)


def _delete_group(call: Call, group_id: str) -> Response:
    return crud.deleted(call, lambda session: secgroups.delete(session, call.caller, group_id))


def _list_rules(call: Call) -> Response:
    with call.reader() as session:
        views = [rule_view(r) for r in session.scalars(access.rules(call.caller))]
    return crud.listed(
        call, RULES, views, lambda v: v, lambda m: errors.SecurityGroupRuleNotFound(id=m)
    )


def _show_rule(call: Call, rule_id: str) -> Response:
    with call.reader() as session:
        view = rule_view(access.rule(session, call.caller, rule_id))
    return crud.one(call, "security_group_rule", view)


def _create_rule(call: Call) -> Response:
    def make(session: Session, attrs: dict[str, Any]) -> View:
        return rule_view(sgrules.create(session, call.caller, call.settings, attrs))

    return crud.created(call, "security_group_rule", "security_group_rules", RULE_SPEC, make)


def _delete_rule(call: Call, rule_id: str) -> Response:
    return crud.deleted(call, lambda session: sgrules.delete(session, call.caller, rule_id))


def routes() -> list[Rule]:
    groups, rules = "/security-groups", "/security-group-rules"
    return [
        route(groups, ["GET"], _list_groups),
        route(groups, ["POST"], _create_group),
        route(f"{groups}/<group_id>", ["GET"], _show_group),
        route(f"{groups}/<group_id>", ["PUT"], _update_group),
        route(f"{groups}/<group_id>", ["DELETE"], _delete_group),
        route(rules, ["GET"], _list_rules),
        route(rules, ["POST"], _create_rule),
        route(f"{rules}/<rule_id>", ["GET"], _show_rule),
        route(f"{rules}/<rule_id>", ["DELETE"], _delete_rule),
    ]
