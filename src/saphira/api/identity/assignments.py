"""GET /v3/role_assignments with Keystone's filters."""

from __future__ import annotations

from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.identity.app import Call, route
from saphira.api.wsgi import json_response
from saphira.db.identity.models import Domain, Project, Role, RoleAssignment, User
from saphira.identity import roles
from saphira.identity.roles import Scope

_SEGMENT = {roles.USER_PROJECT: "projects", roles.USER_DOMAIN: "domains"}
_SCOPE_KEY = {roles.USER_PROJECT: "project", roles.USER_DOMAIN: "domain"}


def _scope_filter(call: Call) -> Scope | None:
    args = call.request.args
    if "scope.project.id" in args:
        return Scope(roles.USER_PROJECT, args["scope.project.id"])
    if "scope.domain.id" in args:
        return Scope(roles.USER_DOMAIN, args["scope.domain.id"])
    if "scope.system" in args:
        return Scope(roles.USER_SYSTEM, roles.SYSTEM_ALL)
    return None


def _named(call: Call, model: type[Any], ident: str) -> dict[str, Any]:
    row = call.session.get(model, ident)
    ref: dict[str, Any] = {"id": ident}
    if row is not None:
        ref["name"] = row.name
        if isinstance(row, User | Project):
            domain = call.session.get(Domain, row.domain_id)
            ref["domain"] = {"id": row.domain_id, "name": domain.name if domain else ""}
    return ref


def _entry(call: Call, row: RoleAssignment, role_id: str, names: bool) -> dict[str, Any]:
    if row.type == roles.USER_SYSTEM:
        scope: dict[str, Any] = {"system": {"all": True}}
        link = f"{call.base}/v3/system/users/{row.actor_id}/roles/{row.role_id}"
    else:
        model = Project if row.type == roles.USER_PROJECT else Domain
        target = _named(call, model, row.target_id) if names else {"id": row.target_id}
        scope = {_SCOPE_KEY[row.type]: target}
        segment = _SEGMENT[row.type]
        link = f"{call.base}/v3/{segment}/{row.target_id}/users/{row.actor_id}/roles/{row.role_id}"
    entry = {
        "role": _named(call, Role, role_id) if names else {"id": role_id},
        "user": _named(call, User, row.actor_id) if names else {"id": row.actor_id},
        "scope": scope,
        "links": {"assignment": link},
    }
    if role_id != row.role_id:
        entry["links"]["prior_role"] = f"{call.base}/v3/roles/{row.role_id}"
    return entry


def list_assignments(call: Call) -> Response:
    args = call.request.args
    scope = _scope_filter(call)
    project = scope.target_id if scope and scope.type == roles.USER_PROJECT else None
    target = {"target.project.id": project} if project else {}
    call.enforce("identity:list_role_assignments", target)
    names = call.query_bool("include_names") or False
    effective = "effective" in args and call.query_bool("effective") is not False
    wanted_role = args.get("role.id")
    rows = roles.assignments(call.session, user_id=args.get("user.id"), scope=scope)
    result = []
    for row in rows:
        role_ids = roles.expand_implied(call.session, [row.role_id]) if effective else [row.role_id]
        result += [
            _entry(call, row, role_id, names)
            for role_id in role_ids
            if wanted_role is None or role_id == wanted_role
        ]
    return json_response({"role_assignments": result, "links": call.list_links()})


def routes() -> list[Rule]:
    return [route("/v3/role_assignments", ["GET"], list_assignments)]
