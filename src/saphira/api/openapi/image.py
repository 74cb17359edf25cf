"""The image API (Glance v2); its create body follows the configured formats."""

from __future__ import annotations

from typing import Any

from saphira.api import image
from saphira.api.image import images, members, schemas
from saphira.api.image.app import Settings
from saphira.api.openapi import draft4
from saphira.api.openapi.model import ApiSpec, Body, Link, Schema, listing, ok

_IMAGE = "/v2/images/<image_id>"
_PATCH_OPS: Schema = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["op", "path"],
        "properties": {
            "op": {"enum": list(images.PATCH_KINDS)},
            "path": {"type": "string", "pattern": "^/"},
            "value": {},
        },
    },
}
_IMPORT: Schema = {
    "type": "object",
    "required": ["method"],
    "properties": {"method": {"type": "object", "required": ["name"]}},
}


def _create(settings: Settings) -> Schema:
    glance = schemas.image_schema(settings)
    return {
        "type": "object",
        "properties": glance["properties"],
        "additionalProperties": glance["additionalProperties"],
    }


def _glance(schema: dict[str, Any]) -> Schema:
    """A Glance schema (as ``GET /v2/schemas/...`` serves it) as a JSON Schema of the body."""
    found: Schema = {"type": "object", "properties": schema["properties"]}
    if "additionalProperties" in schema:
        found["additionalProperties"] = schema["additionalProperties"]
    converted: Schema = draft4.convert(found)
    return converted


def answers(settings: Settings) -> dict[tuple[str, str], dict[str, Any]]:
    """Images and members as the image service's own schemas say they are."""
    image, member = _glance(schemas.image_schema(settings)), _glance(schemas.MEMBER_SCHEMA)
    return {
        ("GET", "/v2/images"): ok(listing("images", image)),
        ("GET", _IMAGE): ok(image),
        ("GET", f"{_IMAGE}/members"): ok(listing("members", member)),
        ("GET", f"{_IMAGE}/members/<member_id>"): ok(member),
    }


def bodies(settings: Settings) -> dict[tuple[str, str], Body]:
    return {
        ("POST", "/v2/images"): Body(_create(settings)),
        ("PATCH", _IMAGE): Body(_PATCH_OPS, images.PATCH_TYPES[0]),
        ("PUT", f"{_IMAGE}/file"): Body({"type": "string"}, "application/octet-stream"),
        ("PUT", f"{_IMAGE}/stage"): Body({"type": "string"}, "application/octet-stream"),
        ("POST", f"{_IMAGE}/import"): Body(_IMPORT),
        ("POST", f"{_IMAGE}/members"): Body(
            {
                "type": "object",
                "required": ["member"],
                "properties": {"member": {"type": "string", "minLength": 1, "maxLength": 255}},
            }
        ),
        ("PUT", f"{_IMAGE}/members/<member_id>"): Body(
            {
                "type": "object",
                "required": ["status"],
                "properties": {"status": {"enum": list(members.STATUSES)}},
            }
        ),
    }


def spec(settings: Settings) -> ApiSpec:
    return ApiSpec(
        name="image",
        title="Saphira image API (Glance v2)",
        version="2.16",
        routes=image.routes,
        bodies=bodies(settings),
        links=(Link("/v2/images", "/v2/images/{image_id}", "image_id", "/id"),),
        responses=answers(settings),
    )
