"""The placement API."""

from __future__ import annotations

from typing import Any

from werkzeug.routing import Rule

from saphira.api import placement
from saphira.api.openapi.model import (
    TEXT,
    ApiSpec,
    Body,
    Header,
    Link,
    Schema,
    answer,
    listing,
    record,
)
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


# Placement's provider at every microversion: uuid, name, generation, links (parents and
# the root from 1.14 may come too).
_LINKS: Schema = {"type": "array", "items": record(["rel", "href"])}
_RP = record(["uuid", "name", "generation", "links"],
             {"uuid": TEXT, "name": TEXT, "generation": {"type": "integer", "minimum": 0},
              "links": _LINKS})  # fmt: skip
_INVENTORY = record(["total"], {"total": {"type": "integer", "minimum": 1}})
_INVENTORIES = record(
    ["inventories", "resource_provider_generation"],
    {"inventories": {"type": "object", "additionalProperties": _INVENTORY}},
)
ANSWERS: dict[tuple[str, str], dict[str, Any]] = {
    ("GET", "/resource_providers"): {"200": answer(listing("resource_providers", _RP))},
    ("GET", _PROVIDER): {"200": answer(_RP)},
    ("GET", f"{_PROVIDER}/inventories"): {"200": answer(_INVENTORIES)},
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
    responses=ANSWERS,
)
