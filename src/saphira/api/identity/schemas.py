"""JSON schemas for request bodies, shaped like Keystone's own validators.

Auth structures reject unknown properties (as Keystone's do); resource
bodies allow extra properties, which Keystone keeps as "extra" attributes.
"""

from __future__ import annotations

from typing import Any

from saphira.identity import user_options

_ID = {"type": "string", "minLength": 1, "maxLength": 64}
_NAME = {"type": "string", "minLength": 1, "maxLength": 255}
_BOOL = {"type": "boolean"}
_TEXT = {"type": ["string", "null"]}
_NULLABLE_ID = {"type": ["string", "null"], "maxLength": 64}


def _obj(
    props: dict[str, Any], required: list[str] | None = None, extra: bool = False
) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": props,
        "additionalProperties": extra,
    }
    if required:
        schema["required"] = required
    return schema


def wrapped(key: str, inner: dict[str, Any]) -> dict[str, Any]:
    """{"project": {...}}: the member is required and must be an object."""
    return _obj({key: inner}, [key], extra=True)


_DOMAIN_REF = _obj({"id": _ID, "name": _NAME})
_PASSWORD_USER = _obj(
    {
        "id": _ID,
        "name": _NAME,
        "password": {"type": "string", "maxLength": 4096},
        "domain": _DOMAIN_REF,
    },
    ["password"],
)
_SCOPE = {
    "type": ["object", "string"],
    "properties": {
        "project": _obj({"id": _ID, "name": _NAME, "domain": _DOMAIN_REF}),
        "domain": _DOMAIN_REF,
        "system": _obj({"all": _BOOL}),
    },
    "additionalProperties": False,
    "maxProperties": 1,
}

AUTH = _obj(
    {
        "auth": _obj(
            {
                "identity": _obj(
                    {
                        "methods": {
                            "type": "array",
                            "items": {"type": "string"},
                            "minItems": 1,
                        },
                        "password": _obj({"user": _PASSWORD_USER}, ["user"]),
                        "token": _obj({"id": {"type": "string", "minLength": 1}}, ["id"]),
                    },
                    ["methods"],
                ),
                "scope": _SCOPE,
            },
            ["identity"],
        )
    },
    ["auth"],
)

_RESOURCE_NAME = {"type": "string", "minLength": 1, "maxLength": 64}  # Keystone's for both
_DOMAIN_PROPS = {"name": _RESOURCE_NAME, "description": _TEXT, "enabled": _BOOL}
DOMAIN_CREATE = wrapped("domain", _obj(_DOMAIN_PROPS, ["name"], extra=True))
DOMAIN_UPDATE = wrapped("domain", _obj(_DOMAIN_PROPS, extra=True))

_PROJECT_PROPS = {
    "name": _RESOURCE_NAME,
    "description": _TEXT,
    "domain_id": _NULLABLE_ID,
    "parent_id": _NULLABLE_ID,
    "enabled": _BOOL,
    "is_domain": {"type": "boolean", "enum": [False]},
    "tags": {"type": "array", "items": {"type": "string"}},
}
PROJECT_CREATE = wrapped("project", _obj(_PROJECT_PROPS, ["name"], extra=True))
PROJECT_UPDATE = wrapped("project", _obj(_PROJECT_PROPS, extra=True))

_USER_PROPS = {
    "name": _NAME,
    "domain_id": _ID,
    "default_project_id": _NULLABLE_ID,
    "enabled": _BOOL,
    "password": {"type": ["string", "null"], "maxLength": 4096},
    "description": _TEXT,
    "email": _TEXT,
    "options": user_options.SCHEMA,
}
USER_CREATE = wrapped("user", _obj(_USER_PROPS, ["name"], extra=True))
USER_UPDATE = wrapped("user", _obj(_USER_PROPS, extra=True))
PASSWORD_CHANGE = wrapped(
    "user",
    _obj(
        {
            "password": {"type": "string", "maxLength": 4096},
            "original_password": {"type": "string", "maxLength": 4096},
        },
        ["password", "original_password"],
    ),
)

_ROLE_PROPS = {"name": _NAME, "description": _TEXT}
ROLE_CREATE = wrapped("role", _obj(_ROLE_PROPS, ["name"], extra=True))
ROLE_UPDATE = wrapped("role", _obj(_ROLE_PROPS, extra=True))

_SERVICE_PROPS = {"type": _NAME, "name": _TEXT, "description": _TEXT, "enabled": _BOOL}
SERVICE_CREATE = wrapped("service", _obj(_SERVICE_PROPS, ["type"], extra=True))
SERVICE_UPDATE = wrapped("service", _obj(_SERVICE_PROPS, extra=True))

_ENDPOINT_PROPS = {
    "service_id": _ID,
    "interface": {"type": "string", "enum": ["public", "internal", "admin"]},
    "url": {"type": "string", "minLength": 1, "maxLength": 2048},
    "region_id": {"type": ["string", "null"], "maxLength": 255},
    "region": {"type": ["string", "null"], "maxLength": 255},
    "enabled": _BOOL,
}
ENDPOINT_CREATE = wrapped(
    "endpoint", _obj(_ENDPOINT_PROPS, ["service_id", "interface", "url"], extra=True)
)
ENDPOINT_UPDATE = wrapped("endpoint", _obj(_ENDPOINT_PROPS, extra=True))

_REGION_PROPS = {
    "id": {"type": "string", "minLength": 1, "maxLength": 255},
    "description": _TEXT,
    "parent_region_id": {"type": ["string", "null"], "maxLength": 255},
}
REGION_CREATE = wrapped("region", _obj(_REGION_PROPS, extra=True))
REGION_UPDATE = wrapped("region", _obj(_REGION_PROPS, extra=True))
