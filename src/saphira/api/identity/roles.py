"""/v3/roles, grants on projects, domains and the system, /v3/role_assignments."""

from __future__ import annotations

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.identity import schemas, views
from saphira.api.identity.app import Call, route
from saphira.api.wsgi import json_response
from saphira.exception import NotFound
from saphira.identity import resources, roles, store, users
from saphira.identity.roles import Scope

# URL segment -> (assignment type, policy target key)
_TARGETS = {
    "projects": (roles.USER_PROJECT, "target.project.id"),
    "domains": (roles.USER_DOMAIN, "target.domain.id"),
}


def list_roles(call: Call) -> Response:
    call.enforce("identity:list_roles")
    rows = roles.list_roles(call.session, name=call.request.args.get("name"))
    return json_response(
        {"roles": [views.role(call.base, r) for r in rows], "links": call.list_links()}
    )


def create_role(call: Call) -> Response:
    call.enforce("identity:create_role")
    body = call.body(schemas.ROLE_CREATE)["role"]
    role = roles.create_role(call.session, body["name"], body.get("description"))
    return json_response({"role": views.role(call.base, role)}, status=201)


def get_role(call: Call, role_id: str) -> Response:
    call.enforce("identity:get_role")
    return json_response({"role": views.role(call.base, roles.get_role(call.session, role_id))})


def update_role(call: Call, role_id: str) -> Response:
    call.enforce("identity:update_role")
    body = call.body(schemas.ROLE_UPDATE)["role"]
    role = roles.get_role(call.session, role_id)
    for key in ("name", "description"):
        if key in body:
            setattr(role, key, body[key])
    store.flush(call.session, "role")
    return json_response({"role": views.role(call.base, role)})


def delete_role(call: Call, role_id: str) -> Response:
    call.enforce("identity:delete_role")
    roles.delete_role(call.session, roles.get_role(call.session, role_id))
    return Response(status=204)


def _scope(call: Call, kind: str, target_id: str, rule: str) -> Scope:
    """Policy first (a member must not learn what exists), then existence."""
    if kind == "system":
        call.enforce(rule, {})
        if target_id != roles.SYSTEM_ALL:
            raise NotFound(f"Could not find system: {target_id}.")
        return Scope(roles.USER_SYSTEM, roles.SYSTEM_ALL)
    assignment_type, key = _TARGETS[kind]
    call.enforce(rule, {key: target_id})
    if kind == "projects":
        resources.get_project(call.session, target_id)
    else:
        resources.get_domain(call.session, target_id)
    return Scope(assignment_type, target_id)


def grant(call: Call, kind: str, target_id: str, user_id: str, role_id: str) -> Response:
    scope = _scope(call, kind, target_id, "identity:create_grant")
    users.get_user(call.session, user_id)
    roles.get_role(call.session, role_id)
    roles.grant(call.session, user_id, scope, role_id)
    return Response(status=204)


def check_grant(call: Call, kind: str, target_id: str, user_id: str, role_id: str) -> Response:
    scope = _scope(call, kind, target_id, "identity:check_grant")
    users.get_user(call.session, user_id)
    roles.get_role(call.session, role_id)
    if not roles.check(call.session, user_id, scope, role_id):
        raise NotFound(f"Could not find role assignment with role: {role_id}.")
    return Response(status=204)


def revoke_grant(call: Call, kind: str, target_id: str, user_id: str, role_id: str) -> Response:
    scope = _scope(call, kind, target_id, "identity:revoke_grant")
    roles.revoke(call.session, user_id, scope, role_id)
    return Response(status=204)


def list_grants(call: Call, kind: str, target_id: str, user_id: str) -> Response:
    scope = _scope(call, kind, target_id, "identity:list_grants")
    users.get_user(call.session, user_id)
    found = roles.assignments(call.session, user_id=user_id, scope=scope)
    rows = [roles.get_role(call.session, a.role_id) for a in found]
    return json_response(
        {"roles": [views.role(call.base, r) for r in rows], "links": call.list_links()}
    )


def routes() -> list[Rule]:
    rules = [
        route("/v3/roles", ["GET"], list_roles),
        route("/v3/roles", ["POST"], create_role),
        route("/v3/roles/<role_id>", ["GET"], get_role),
        route("/v3/roles/<role_id>", ["PATCH"], update_role),
        route("/v3/roles/<role_id>", ["DELETE"], delete_role),
    ]
    for prefix in ("/v3/<any(projects, domains):kind>/<target_id>", "/v3/<any(system):kind>"):
        one = f"{prefix}/users/<user_id>/roles/<role_id>"
        defaults = {"target_id": roles.SYSTEM_ALL} if "system" in prefix else None
        rules += [
            route(one, ["PUT"], grant, defaults=defaults),
            route(one, ["GET"], check_grant, defaults=defaults),
            route(one, ["DELETE"], revoke_grant, defaults=defaults),
            route(f"{prefix}/users/<user_id>/roles", ["GET"], list_grants, defaults=defaults),
        ]
    return rules
