"""Request schemas of /servers and its actions, after Nova's own, per microversion."""

from __future__ import annotations

import copy
import functools
from typing import Any

from saphira.api.compute.schemas import DESCRIPTION, NAME, POSITIVE

METADATA = {
    "type": "object",
    "patternProperties": {r"^[a-zA-Z0-9-_:. ]{1,255}$": {"type": "string", "maxLength": 255}},
    "additionalProperties": False,
}
TAG = {"type": "string", "minLength": 1, "maxLength": 60, "pattern": "^[^,/]*$"}
TAGS = {"type": "array", "items": TAG, "maxItems": 50}
_IP4 = {"type": "string", "format": "ipv4"}
_IP6 = {"type": "string", "format": "ipv6"}
_NETWORK = {
    "type": "object",
    "properties": {
        "fixed_ip": {"type": "string", "oneOf": [{"format": "ipv4"}, {"format": "ipv6"}]},
        "port": {"oneOf": [{"type": "string", "format": "uuid"}, {"type": "null"}]},
        "uuid": {"type": "string"}, "tag": {"type": "string", "maxLength": 60},
    },
    "additionalProperties": False,
}  # fmt: skip
_SERVER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": NAME,
        "imageRef": {"type": "string", "maxLength": 255},
        "flavorRef": {"type": ["string", "integer"], "minLength": 1},
        "adminPass": {"type": "string"},
        "metadata": METADATA,
        "networks": {"type": "array", "items": _NETWORK},
        "OS-DCF:diskConfig": {"type": "string", "enum": ["AUTO", "MANUAL"]},
        "accessIPv4": _IP4, "accessIPv6": _IP6,
        "key_name": {"type": "string", "minLength": 1, "maxLength": 255},
        "user_data": {"type": "string", "maxLength": 65535},
        "availability_zone": {"type": "string", "minLength": 1, "maxLength": 255},
        "min_count": POSITIVE, "max_count": POSITIVE,
        "return_reservation_id": {"type": ["boolean", "string"]},
        "security_groups": {"type": "array", "items": {"type": "object",
                            "properties": {"name": {"type": "string"}},
                            "additionalProperties": False}},
        "config_drive": {"type": ["boolean", "string"]},
        "block_device_mapping_v2": {"type": "array"},
    },
    "required": ["name", "flavorRef"],
    "additionalProperties": False,
}  # fmt: skip
_HINTS = {
    "type": "object",
    "properties": {"group": {"type": "string", "format": "uuid"},
                   "different_host": {"type": ["string", "array"]},
                   "same_host": {"type": ["string", "array"]}},
    "additionalProperties": True,
}  # fmt: skip


_CREATE_STEPS = ("2.19", "2.37", "2.52", "2.63", "2.74", "2.90")


def server_create(version_at_least: Any) -> dict[str, Any]:
    """The create schema for a request's version (``version_at_least("2.37")``...): made
    once per set of the versions it changes at, and shared (a schema is only read)."""
    return _server_create(tuple(bool(version_at_least(step)) for step in _CREATE_STEPS))


@functools.cache
def _server_create(steps: tuple[bool, ...]) -> dict[str, Any]:
    at = dict(zip(_CREATE_STEPS, steps, strict=True))
    server = copy.deepcopy(_SERVER)
    props = server["properties"]
    if at["2.19"]:
        props["description"] = DESCRIPTION
    if at["2.37"]:
        props["networks"] = {
            "oneOf": [props["networks"], {"type": "string", "enum": ["none", "auto"]}]
        }
        server["required"] = ["name", "flavorRef", "networks"]
    if at["2.52"]:
        props["tags"] = TAGS
    if at["2.63"]:
        props["trusted_image_certificates"] = {"type": ["array", "null"]}
    if at["2.74"]:
        props["host"] = {"type": "string", "minLength": 1, "maxLength": 255}
        props["hypervisor_hostname"] = {"type": "string", "minLength": 1, "maxLength": 255}
    if at["2.90"]:
        props["hostname"] = {"type": "string", "minLength": 1, "maxLength": 255}
    return {
        "type": "object",
        "properties": {"server": server, "os:scheduler_hints": _HINTS,
                       "OS-SCH-HNT:scheduler_hints": _HINTS},
        "required": ["server"],
        "additionalProperties": False,
    }  # fmt: skip


def server_update(version_at_least: Any) -> dict[str, Any]:
    props: dict[str, Any] = {
        "name": NAME,
        "accessIPv4": _IP4,
        "accessIPv6": _IP6,
        "OS-DCF:diskConfig": {"type": "string", "enum": ["AUTO", "MANUAL"]},
    }
    if version_at_least("2.19"):
        props["description"] = DESCRIPTION
    if version_at_least("2.90"):
        props["hostname"] = {"type": "string", "minLength": 1, "maxLength": 255}
    server = {"type": "object", "properties": props, "additionalProperties": False}
    return {"type": "object", "properties": {"server": server}, "required": ["server"],
            "additionalProperties": False}  # fmt: skip


def rebuild(version_at_least: Any) -> dict[str, Any]:
    props: dict[str, Any] = {
        "imageRef": {"type": "string", "minLength": 1}, "name": NAME,
        "adminPass": {"type": "string"}, "metadata": METADATA,
        "preserve_ephemeral": {"type": "boolean"},
        "OS-DCF:diskConfig": {"type": "string", "enum": ["AUTO", "MANUAL"]},
        "accessIPv4": _IP4, "accessIPv6": _IP6, "personality": {"type": "array"},
    }  # fmt: skip
    if version_at_least("2.19"):
        props["description"] = DESCRIPTION
    if version_at_least("2.54"):
        props["key_name"] = {"type": ["string", "null"]}
    if version_at_least("2.57"):
        props.pop("personality")
        props["user_data"] = {"type": ["string", "null"], "maxLength": 65535}
    if version_at_least("2.63"):
        props["trusted_image_certificates"] = {"type": ["array", "null"]}
    inner = {"type": "object", "properties": props, "required": ["imageRef"],
             "additionalProperties": False}  # fmt: skip
    return {"type": "object", "properties": {"rebuild": inner}, "required": ["rebuild"],
            "additionalProperties": False}  # fmt: skip
