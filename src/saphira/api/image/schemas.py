"""The schema documents of /v2/schemas/*, which also validate what clients send.

Glance generates them from its image properties; the CLI and openstacksdk read
``/v2/schemas/image`` to learn what they may set. Free-form properties are
strings (``additionalProperties``), as in Glance.
"""

from __future__ import annotations

from typing import Any

from werkzeug.wrappers import Response

from saphira.api.image.app import Call, Settings, route
from saphira.api.wsgi import json_response

READ_ONLY = (
    "created_at", "updated_at", "status", "checksum", "os_hash_algo", "os_hash_value", "size",
    "virtual_size", "direct_url", "self", "file", "schema", "stores",
)  # fmt: skip
RESERVED = ("deleted", "deleted_at", "location", "locations")
UUID_PATTERN = (
    "^([0-9a-fA-F]){8}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){12}$"
)
NULLABLE_STRING: dict[str, Any] = {"type": ["null", "string"], "maxLength": 255}


def image_schema(settings: Settings) -> dict[str, Any]:
    props: dict[str, Any] = {
        "id": {"type": "string", "pattern": UUID_PATTERN, "description": "An identifier."},
        "name": {**NULLABLE_STRING, "description": "Descriptive name for the image."},
        "status": {
            "type": "string",
            "readOnly": True,
            "enum": [
                "queued",
                "saving",
                "active",
                "killed",
                "deleted",
                "uploading",
                "importing",
                "pending_delete",
                "deactivated",
            ],
        },
        "visibility": {"type": "string", "enum": ["community", "public", "private", "shared"]},
        "protected": {"type": "boolean"},
        "os_hidden": {"type": "boolean"},
        "checksum": {**NULLABLE_STRING, "readOnly": True},
        "os_hash_algo": {"type": ["null", "string"], "readOnly": True, "maxLength": 64},
        "os_hash_value": {"type": ["null", "string"], "readOnly": True, "maxLength": 128},
        "owner": NULLABLE_STRING,
        "size": {"type": ["null", "integer"], "readOnly": True},
        "virtual_size": {"type": ["null", "integer"], "readOnly": True},
        "container_format": {
            "type": ["null", "string"],
            "enum": [None, *settings.container_formats],
        },
        "disk_format": {"type": ["null", "string"], "enum": [None, *settings.disk_formats]},
        "created_at": {"type": "string", "readOnly": True},
        "updated_at": {"type": "string", "readOnly": True},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 255}},
        "direct_url": {"type": "string", "readOnly": True},
        "min_ram": {"type": "integer", "minimum": 0, "maximum": 2147483647},
        "min_disk": {"type": "integer", "minimum": 0, "maximum": 2147483647},
        "self": {"type": "string", "readOnly": True},
        "file": {"type": "string", "readOnly": True},
        "schema": {"type": "string", "readOnly": True},
        "locations": {"type": "array", "items": {"type": "object"}},
        "kernel_id": {"type": ["null", "string"], "pattern": UUID_PATTERN},
        "ramdisk_id": {"type": ["null", "string"], "pattern": UUID_PATTERN},
    }
    return {
        "name": "image",
        "properties": props,
        "additionalProperties": {"type": "string"},
        "links": [
            {"rel": "self", "href": "{self}"},
            {"rel": "enclosure", "href": "{file}"},
            {"rel": "describedby", "href": "{schema}"},
        ],
    }


def images_schema(settings: Settings) -> dict[str, Any]:
    return {
        "name": "images",
        "properties": {
            "images": {"type": "array", "items": image_schema(settings)},
            "schema": {"type": "string"},
            "first": {"type": "string"},
            "next": {"type": "string"},
        },
        "links": [
            {"rel": "first", "href": "{first}"},
            {"rel": "next", "href": "{next}"},
            {"rel": "describedby", "href": "{schema}"},
        ],
    }


MEMBER_SCHEMA: dict[str, Any] = {
    "name": "member",
    "properties": {
        "created_at": {"type": "string"},
        "updated_at": {"type": "string"},
        "image_id": {"type": "string", "pattern": UUID_PATTERN},
        "member_id": {"type": "string"},
        "status": {"type": "string", "enum": ["pending", "accepted", "rejected"]},
        "schema": {"type": "string", "readOnly": True},
    },
}


def _image(call: Call) -> Response:
    return json_response(image_schema(call.settings))


def _images(call: Call) -> Response:
    return json_response(images_schema(call.settings))


def _member(call: Call) -> Response:
    return json_response(MEMBER_SCHEMA)


def _members(call: Call) -> Response:
    body = {
        "name": "members",
        "properties": {"members": {"type": "array", "items": MEMBER_SCHEMA},
                       "schema": {"type": "string"}},
        "links": [{"rel": "schema", "href": "{schema}"}],
    }  # fmt: skip
    return json_response(body)


def routes() -> list[Any]:
    return [
        route("/v2/schemas/image", ["GET"], _image),
        route("/v2/schemas/images", ["GET"], _images),
        route("/v2/schemas/member", ["GET"], _member),
        route("/v2/schemas/members", ["GET"], _members),
    ]
