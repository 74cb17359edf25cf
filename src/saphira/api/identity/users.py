"""/v3/users, self-service password change and a user's projects."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.identity import schemas, views
from saphira.api.identity.app import Call, route
from saphira.api.wsgi import json_response
from saphira.db.identity.models import Project, RoleAssignment
from saphira.identity import lockout, login, revoke, roles, store, user_options, users

_COLUMNS = ("name", "enabled", "default_project_id")
_IGNORED = ("password", "domain_id", "id", "links", "options", "password_expires_at")


def _fields(body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    fields = {k: v for k, v in body.items() if k in _COLUMNS}
    extra = {k: v for k, v in body.items() if k not in _COLUMNS and k not in _IGNORED}
    return fields, extra


def list_users(call: Call) -> Response:
    call.enforce("identity:list_users")
    args = call.request.args
    rows = users.list_users(
        call.session,
        name=args.get("name"),
        domain_id=args.get("domain_id"),
        enabled=call.query_bool("enabled"),
    )
    body = [views.user(call.base, u) for u in rows]
    return json_response({"users": body, "links": call.list_links()})


def create_user(call: Call) -> Response:
    call.enforce("identity:create_user")
    body = call.body(schemas.USER_CREATE)["user"]
    domain_id = body.get("domain_id") or call.default_domain_id()
    fields, extra = _fields(body)
    fields.setdefault("enabled", True)
    user = users.create_user(
        call.session,
        domain_id=domain_id,
        password=body.get("password"),
        cost=call.backend.password_hash_cost,
        extra=store.dump_extra(extra),
        **fields,
    )
    if body.get("options"):
        user_options.update(user, body["options"])
    return json_response({"user": views.user(call.base, user)}, status=201)


def get_user(call: Call, user_id: str) -> Response:
    call.enforce("identity:get_user", {"target.user.id": user_id})
    user = users.get_user(call.session, user_id)
    return json_response({"user": views.user(call.base, user)})


def update_user(call: Call, user_id: str) -> Response:
    call.enforce("identity:update_user", {"target.user.id": user_id})
    body = call.body(schemas.USER_UPDATE)["user"]
    user = users.get_user(call.session, user_id)
    fields, extra = _fields(body)
    store.apply_update(user, fields, extra)
    if "options" in body:
        user_options.update(user, body["options"] or {})
    if "password" in body:
        users.set_password(call.session, user, body["password"], call.backend.password_hash_cost)
    if body.get("enabled") is False:
        revoke.revoke_user(call.session, user.id)
    if body.get("enabled") is True:
        lockout.reset(call.session, user.id)  # Keystone: enabling a user unlocks it
    store.flush(call.session, "user")
    return json_response({"user": views.user(call.base, user)})


def delete_user(call: Call, user_id: str) -> Response:
    call.enforce("identity:delete_user", {"target.user.id": user_id})
    users.delete_user(call.session, users.get_user(call.session, user_id))
    return Response(status=204)


def change_password(call: Call, user_id: str) -> Response:
    call.enforce("identity:change_password", {"target.user.id": user_id})
    body = call.body(schemas.PASSWORD_CHANGE)["user"]
    user = users.get_user(call.session, user_id)
    login.check_password(call.backend, call.session, user, body["original_password"], call.source)
    users.set_password(call.session, user, body["password"], call.backend.password_hash_cost)
    return Response(status=204)


def list_user_projects(call: Call, user_id: str) -> Response:
    call.enforce("identity:list_user_projects", {"target.user.id": user_id})
    users.get_user(call.session, user_id)
    ids = sa.select(RoleAssignment.target_id).where(
        RoleAssignment.actor_id == user_id, RoleAssignment.type == roles.USER_PROJECT
    )
    rows = call.session.scalars(
        sa.select(Project).where(Project.id.in_(ids)).order_by(Project.name)
    )
    body = [views.project(call.base, p) for p in rows]
    return json_response({"projects": body, "links": call.list_links()})


def routes() -> list[Rule]:
    return [
        route("/v3/users", ["GET"], list_users),
        route("/v3/users", ["POST"], create_user),
        route("/v3/users/<user_id>", ["GET"], get_user),
        route("/v3/users/<user_id>", ["PATCH"], update_user),
        route("/v3/users/<user_id>", ["DELETE"], delete_user),
        route("/v3/users/<user_id>/password", ["POST"], change_password),
        route("/v3/users/<user_id>/projects", ["GET"], list_user_projects),
    ]
