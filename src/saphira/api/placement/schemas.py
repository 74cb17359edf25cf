"""Request bodies, as Placement's schemas define them (per microversion where they differ)."""

from __future__ import annotations

from typing import Any

MAX_INT = 2147483647
UUID_PATTERN = "^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$"
UUID: dict[str, Any] = {"type": "string", "pattern": UUID_PATTERN}
RC_NAME: dict[str, Any] = {"type": "string", "pattern": "^[A-Z0-9_]+$", "maxLength": 255}
GENERATION: dict[str, Any] = {"type": "integer"}


def provider_create(parent: bool) -> dict[str, Any]:
    props: dict[str, Any] = {
        "name": {"type": "string", "minLength": 1, "maxLength": 200},
        "uuid": UUID,
    }
    if parent:
        props["parent_provider_uuid"] = {"anyOf": [UUID, {"type": "null"}]}
    return {
        "type": "object",
        "properties": props,
        "required": ["name"],
        "additionalProperties": False,
    }


def provider_update(parent: bool) -> dict[str, Any]:
    schema = provider_create(parent)
    schema["properties"].pop("uuid")
    return schema


INVENTORY_FIELDS: dict[str, Any] = {
    "total": {"type": "integer", "minimum": 1, "maximum": MAX_INT},
    "reserved": {"type": "integer", "minimum": 0, "maximum": MAX_INT},
    "min_unit": {"type": "integer", "minimum": 1, "maximum": MAX_INT},
    "max_unit": {"type": "integer", "minimum": 1, "maximum": MAX_INT},
    "step_size": {"type": "integer", "minimum": 1, "maximum": MAX_INT},
    "allocation_ratio": {
        "type": "number",
        "minimum": 0,
        "maximum": 3.40282e38,
        "exclusiveMinimum": True,
    },
}
INVENTORY: dict[str, Any] = {
    "type": "object",
    "properties": INVENTORY_FIELDS,
    "required": ["total"],
    "additionalProperties": False,
}
INVENTORIES: dict[str, Any] = {
    "type": "object",
    "properties": {
        "resource_provider_generation": GENERATION,
        "inventories": {
            "type": "object",
            "patternProperties": {"^[A-Z0-9_]+$": INVENTORY},
            "additionalProperties": False,
        },
    },
    "required": ["resource_provider_generation", "inventories"],
    "additionalProperties": False,
}
INVENTORY_PUT: dict[str, Any] = {
    "type": "object",
    "properties": {**INVENTORY_FIELDS, "resource_provider_generation": GENERATION},
    "required": ["total", "resource_provider_generation"],
    "additionalProperties": False,
}
INVENTORY_POST: dict[str, Any] = {
    "type": "object",
    "properties": {**INVENTORY_FIELDS, "resource_class": RC_NAME},
    "required": ["total", "resource_class"],
    "additionalProperties": False,
}
RESOURCE_CLASS: dict[str, Any] = {
    "type": "object",
    "properties": {"name": RC_NAME},
    "required": ["name"],
    "additionalProperties": False,
}
PROVIDER_TRAITS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "traits": {"type": "array", "items": {"type": "string", "pattern": "^[A-Z0-9_]+$"}},
        "resource_provider_generation": GENERATION,
    },
    "required": ["traits", "resource_provider_generation"],
    "additionalProperties": False,
}
AGGREGATE_LIST: dict[str, Any] = {"type": "array", "items": UUID, "uniqueItems": True}
AGGREGATES: dict[str, Any] = {
    "type": "object",
    "properties": {"aggregates": AGGREGATE_LIST, "resource_provider_generation": GENERATION},
    "required": ["aggregates", "resource_provider_generation"],
    "additionalProperties": False,
}
RESOURCES: dict[str, Any] = {
    "type": "object",
    "minProperties": 1,
    "patternProperties": {"^[A-Z0-9_]+$": {"type": "integer", "minimum": 1}},
    "additionalProperties": False,
}
ID: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 255}


def allocations_dict(minor: int, *, standalone: bool = True) -> dict[str, Any]:
    """PUT /allocations/{c} from 1.12 (dict form) and each entry of POST /allocations."""
    props: dict[str, Any] = {
        "allocations": {
            "type": "object",
            "minProperties": 0 if standalone or minor >= 13 else 1,
            "patternProperties": {
                UUID_PATTERN: {
                    "type": "object",
                    "properties": {"resources": RESOURCES, "generation": GENERATION},
                    "required": ["resources"],
                    "additionalProperties": False,
                }
            },
            "additionalProperties": False,
        },
        "project_id": ID,
        "user_id": ID,
    }
    required = ["allocations", "project_id", "user_id"]
    if minor >= 28:
        props["consumer_generation"] = {"type": ["integer", "null"]}
        required.append("consumer_generation")
    return {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


def allocations_list(minor: int) -> dict[str, Any]:
    """PUT /allocations/{c} before 1.12: a list of {resource_provider, resources}."""
    props: dict[str, Any] = {
        "allocations": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "resource_provider": {
                        "type": "object",
                        "properties": {"uuid": UUID},
                        "required": ["uuid"],
                        "additionalProperties": False,
                    },
                    "resources": RESOURCES,
                },
                "required": ["resource_provider", "resources"],
                "additionalProperties": False,
            },
        },
        "project_id": ID,
        "user_id": ID,
    }
    required = ["allocations"] + (["project_id", "user_id"] if minor >= 8 else [])
    return {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


def allocations_post(minor: int) -> dict[str, Any]:
    return {
        "type": "object",
        "minProperties": 1,
        "patternProperties": {UUID_PATTERN: allocations_dict(minor)},
        "additionalProperties": False,
    }
