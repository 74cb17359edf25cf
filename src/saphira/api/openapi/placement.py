"""The placement API."""

from __future__ import annotations

from werkzeug.routing import Rule

from saphira.api import placement
from saphira.api.openapi import placement_answers
from saphira.api.openapi.model import ApiSpec, Body, Header, Link, Schema
from saphira.api.placement import microversion, schemas

_NEWEST = microversion.MAX[1]
FAULT: Schema = {
    "type": "object",
    "required": ["errors"],
    "properties": {
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["status", "title", "detail"],
                "properties": {
                    "status": {"type": "integer"},
                    "title": {"type": "string"},
                    "detail": {"type": "string"},
                    "code": {"type": "string"},
                },
            },
        }
    },
}
_PROVIDER = "/resource_providers/<uuid>"
BODIES: dict[tuple[str, str], Body] = {
    ("POST", "/resource_providers"): Body(schemas.provider_create(True)),
    ("PUT", _PROVIDER): Body(schemas.provider_update(True)),
    ("PUT", f"{_PROVIDER}/inventories"): Body(schemas.INVENTORIES),
    ("POST", f"{_PROVIDER}/inventories"): Body(schemas.INVENTORY_POST),
    ("PUT", f"{_PROVIDER}/inventories/<rc>"): Body(schemas.INVENTORY_PUT),
    ("POST", "/resource_classes"): Body(schemas.RESOURCE_CLASS),
    ("PUT", f"{_PROVIDER}/traits"): Body(schemas.PROVIDER_TRAITS),
    ("PUT", f"{_PROVIDER}/aggregates"): Body(schemas.AGGREGATES),
    ("POST", "/allocations"): Body(schemas.allocations_post(_NEWEST)),
    ("PUT", "/allocations/<consumer>"): Body(schemas.allocations_dict(_NEWEST)),
}


def _public(rule: Rule) -> bool:
    endpoint = rule.endpoint
    return isinstance(endpoint, tuple) and bool(endpoint[1])


SPEC = ApiSpec(
    name="placement",
    title="Saphira placement API",
    version=f"{microversion.MAX[0]}.{_NEWEST}",
    routes=placement.routes,
    bodies=BODIES,
    public=_public,
    headers=(
        Header(
            microversion.HEADER,
            "The microversion, e.g. 'placement 1.36' or 'placement latest': comma-separated"
            " 'service version' entries of which only placement's counts (none: 1.0)",
        ),
    ),
    links=(Link("/resource_providers", "/resource_providers/{uuid}", "uuid", "/uuid"),),
    fault=FAULT,
    responses=placement_answers.ANSWERS,
)
