"""POST/GET/HEAD/DELETE /v3/auth/tokens and the /v3/auth/* listings."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.identity import schemas, views
from saphira.api.identity.app import Call, route
from saphira.api.wsgi import json_response
from saphira.db.identity.models import Domain, Project, RoleAssignment, User
from saphira.exception import NotFound, SaphiraError, Unauthorized, ValidationError
from saphira.identity import catalog, login, resources, roles, users
from saphira.identity import revoke as revocation
from saphira.identity.auth import TokenData
from saphira.identity.roles import Scope

SUBJECT_HEADER = "X-Subject-Token"
METHODS = ("password", "token")


def _domain_id(session: Any, ref: dict[str, Any] | None, where: str) -> str:
    if not ref or not (ref.get("id") or ref.get("name")):
        raise ValidationError(f"Expecting to find domain in {where}.")
    return resources.find_domain(session, domain_id=ref.get("id"), name=ref.get("name")).id


def _password_user(call: Call, identity: dict[str, Any]) -> User:
    if "password" not in identity:
        raise ValidationError("Expecting to find password in identity.")
    ref = identity["password"]["user"]
    user: User | None = None
    try:
        if ref.get("id"):
            user = users.get_user(call.session, ref["id"])
        elif ref.get("name"):
            domain_id = _domain_id(call.session, ref.get("domain"), "user")
            user = users.find_user(call.session, ref["name"], domain_id)
        else:
            raise ValidationError("Expecting to find id or name in user.")
    except NotFound:
        user = None
    return login.check_password(call.backend, call.session, user, ref["password"], call.source)


def _scope(call: Call, scope: Any, user: User) -> Scope | None:
    try:
        if not scope:
            return _default_scope(call, user)
        if scope == "unscoped" or not isinstance(scope, dict):
            return None
        if "system" in scope:
            return (
                Scope(roles.USER_SYSTEM, roles.SYSTEM_ALL) if scope["system"].get("all") else None
            )
        if "domain" in scope:
            return Scope(roles.USER_DOMAIN, _domain_id(call.session, scope["domain"], "scope"))
        ref = scope["project"]
        domain_id = (
            None if ref.get("id") else _domain_id(call.session, ref.get("domain"), "project")
        )
        project = resources.find_project(
            call.session, project_id=ref.get("id"), name=ref.get("name"), domain_id=domain_id
        )
        return Scope(roles.USER_PROJECT, project.id)
    except NotFound as error:
        raise Unauthorized(error.message) from None


def _default_scope(call: Call, user: User) -> Scope | None:
    """Keystone scopes to the default project when no scope is asked for and roles exist."""
    if user.default_project_id:
        scope = Scope(roles.USER_PROJECT, user.default_project_id)
        if roles.effective_roles(call.session, user.id, scope):
            return scope
    return None


def issue(call: Call) -> Response:
    auth = call.body(schemas.AUTH)["auth"]
    identity = auth["identity"]
    methods = list(dict.fromkeys(identity["methods"]))
    if any(m not in METHODS for m in methods):
        raise Unauthorized("Attempted to authenticate with an unsupported method.")
    parent = None
    if "password" in methods:
        user = _password_user(call, identity)
    else:
        if "token" not in identity:
            raise ValidationError("Expecting to find token in identity.")
        parent = call.backend.validate_token(call.session, identity["token"]["id"])
        methods = list(dict.fromkeys([*parent.payload.methods, *methods]))
        user = users.get_user(call.session, parent.user.id)
    scope = _scope(call, auth.get("scope"), user)
    data = call.backend.issue_token(
        call.session, user.id, tuple(methods), scope, parent.payload if parent else None
    )
    body = views.token(data, _catalog(call))
    return json_response(body, status=201, headers={SUBJECT_HEADER: data.token})


def _catalog(call: Call) -> list[dict[str, Any]] | None:
    if "nocatalog" in call.request.args:
        return None
    return catalog.build_catalog(call.session)


def _subject(call: Call, rule: str, allow_expired: bool = False) -> TokenData:
    token = call.request.headers.get(SUBJECT_HEADER, "")
    try:
        subject = call.backend.validate_token(call.session, token, allow_expired)
    except SaphiraError:
        raise NotFound(f"Could not find token: {token[:64]}.") from None
    call.enforce(rule, {"target.token.user_id": subject.user.id})
    return subject


def validate(call: Call) -> Response:
    """``?allow_expired=1``: Keystone's, for services finishing a user's work."""
    allow_expired = call.request.args.get("allow_expired", "").lower() in ("1", "true", "yes")
    subject = _subject(call, "identity:validate_token", allow_expired)
    return json_response(
        views.token(subject, _catalog(call)), headers={SUBJECT_HEADER: subject.token}
    )


def revoke(call: Call) -> Response:
    subject = _subject(call, "identity:revoke_token")
    revocation.revoke_audit_id(call.session, subject.payload.audit_ids[0])
    backend = call.backend  # kept while a revoked token could still be accepted
    revocation.prune(call.session, 2 * backend.token_expiration + backend.allow_expired_window)
    return Response(status=204)


def auth_catalog(call: Call) -> Response:
    call.enforce("identity:get_auth_catalog")
    body = {"catalog": catalog.build_catalog(call.session), "links": call.list_links()}
    return json_response(body)


def _targets(call: Call, kind: str) -> list[str]:
    assert call.caller is not None
    query = sa.select(RoleAssignment.target_id).where(
        RoleAssignment.actor_id == call.caller.user.id, RoleAssignment.type == kind
    )
    return sorted(set(call.session.scalars(query)))


def auth_projects(call: Call) -> Response:
    call.enforce("identity:get_auth_projects")
    ids = _targets(call, roles.USER_PROJECT)
    rows = call.session.scalars(
        sa.select(Project).where(Project.id.in_(ids), Project.enabled.is_(True))
    )
    projects = [views.project(call.base, p) for p in rows]
    return json_response({"projects": projects, "links": call.list_links()})


def auth_domains(call: Call) -> Response:
    call.enforce("identity:get_auth_domains")
    ids = _targets(call, roles.USER_DOMAIN)
    rows = call.session.scalars(
        sa.select(Domain).where(Domain.id.in_(ids), Domain.enabled.is_(True))
    )
    domains = [views.domain(call.base, d) for d in rows]
    return json_response({"domains": domains, "links": call.list_links()})


def auth_system(call: Call) -> Response:
    call.enforce("identity:get_auth_system")
    system = [{"all": True}] if _targets(call, roles.USER_SYSTEM) else []
    return json_response({"system": system, "links": call.list_links()})


def routes() -> list[Rule]:
    return [
        route("/v3/auth/tokens", ["POST"], issue, public=True),
        route("/v3/auth/tokens", ["GET"], validate),
        route("/v3/auth/tokens", ["DELETE"], revoke),
        route("/v3/auth/catalog", ["GET"], auth_catalog),
        route("/v3/auth/projects", ["GET"], auth_projects),
        route("/v3/auth/domains", ["GET"], auth_domains),
        route("/v3/auth/system", ["GET"], auth_system),
    ]
