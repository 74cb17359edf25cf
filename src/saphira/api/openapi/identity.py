"""The identity API (Keystone v3)."""

from __future__ import annotations

from werkzeug.routing import Rule

from saphira.api import identity
from saphira.api.identity import schemas
from saphira.api.identity.app import Route
from saphira.api.openapi import identity_answers
from saphira.api.openapi.model import ApiSpec, Body, Link, keystone_error

FAULT = keystone_error({"type": "integer"})
BODIES: dict[tuple[str, str], Body] = {
    ("POST", "/v3/auth/tokens"): Body(schemas.AUTH),
    ("POST", "/v3/domains"): Body(schemas.DOMAIN_CREATE),
    ("PATCH", "/v3/domains/<domain_id>"): Body(schemas.DOMAIN_UPDATE),
    ("POST", "/v3/projects"): Body(schemas.PROJECT_CREATE),
    ("PATCH", "/v3/projects/<project_id>"): Body(schemas.PROJECT_UPDATE),
    ("POST", "/v3/users"): Body(schemas.USER_CREATE),
    ("PATCH", "/v3/users/<user_id>"): Body(schemas.USER_UPDATE),
    ("POST", "/v3/users/<user_id>/password"): Body(schemas.PASSWORD_CHANGE),
    ("POST", "/v3/roles"): Body(schemas.ROLE_CREATE),
    ("PATCH", "/v3/roles/<role_id>"): Body(schemas.ROLE_UPDATE),
    ("POST", "/v3/services"): Body(schemas.SERVICE_CREATE),
    ("PATCH", "/v3/services/<ident>"): Body(schemas.SERVICE_UPDATE),
    ("POST", "/v3/endpoints"): Body(schemas.ENDPOINT_CREATE),
    ("PATCH", "/v3/endpoints/<ident>"): Body(schemas.ENDPOINT_UPDATE),
    ("POST", "/v3/regions"): Body(schemas.REGION_CREATE),
    ("PUT", "/v3/regions/<region_id>"): Body(schemas.REGION_CREATE),
    ("PATCH", "/v3/regions/<ident>"): Body(schemas.REGION_UPDATE),
}


def _public(rule: Rule) -> bool:
    return isinstance(rule.endpoint, Route) and rule.endpoint.public


def _link(collection: str, param: str, key: str) -> Link:
    return Link(f"/v3/{collection}", f"/v3/{collection}/{{{param}}}", param, f"/{key}/id")


SPEC = ApiSpec(
    name="identity",
    title="Saphira identity API (Keystone v3)",
    version="3.14",
    routes=identity.routes,
    bodies=BODIES,
    public=_public,
    links=(
        _link("domains", "domain_id", "domain"),
        _link("projects", "project_id", "project"),
        _link("users", "user_id", "user"),
        _link("roles", "role_id", "role"),
        _link("services", "ident", "service"),
        _link("endpoints", "ident", "endpoint"),
        _link("regions", "ident", "region"),
    ),
    fault=FAULT,
    responses=identity_answers.ANSWERS,
)
