"""Request body schemas (jsonschema Draft 4), after Nova's own."""

from __future__ import annotations

import copy
from typing import Any

NAME = {"type": "string", "minLength": 1, "maxLength": 255, "pattern": r"^\S(.*\S)?$"}
POSITIVE = {"type": ["integer", "string"], "pattern": "^[0-9]+$", "minimum": 1,
            "maximum": 2147483647}  # fmt: skip
NON_NEGATIVE = {"type": ["integer", "string"], "pattern": "^[0-9]+$", "minimum": 0,
                "maximum": 2147483647}  # fmt: skip
DESCRIPTION = {"type": ["string", "null"], "minLength": 0, "maxLength": 65535}
TRUE_STRINGS = ("True", "TRUE", "true", "1", "ON", "On", "on", "YES", "Yes", "yes")
FALSE_STRINGS = ("False", "FALSE", "false", "0", "OFF", "Off", "off", "NO", "No", "no")
# Nova's parameter_types.boolean: a JSON boolean or one of its spellings as a string.
BOOLEAN = {"type": ["boolean", "string"], "enum": [True, *TRUE_STRINGS, False, *FALSE_STRINGS]}


def _obj(props: dict[str, Any], required: list[str], extra: bool = False) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required,
            "additionalProperties": extra}  # fmt: skip


def _wrap(key: str, inner: dict[str, Any]) -> dict[str, Any]:
    return _obj({key: inner}, [key])


_FLAVOR = _obj(
    {
        "name": NAME,
        "id": {"type": ["string", "number", "null"], "minLength": 1, "maxLength": 255,
               "pattern": r"^(?! )[a-zA-Z0-9. _-]+(?<! )$"},
        "ram": POSITIVE, "vcpus": POSITIVE, "disk": NON_NEGATIVE,
        "OS-FLV-EXT-DATA:ephemeral": NON_NEGATIVE, "swap": NON_NEGATIVE,
        "rxtx_factor": {"type": ["number", "string"], "pattern": r"^[0-9]+(\.[0-9]+)?$",
                        "minimum": 0, "exclusiveMinimum": True, "maximum": 3.40282e38},
        "os-flavor-access:is_public": BOOLEAN,
    },
    ["name", "ram", "vcpus", "disk"],
)  # fmt: skip
FLAVOR_CREATE = _wrap("flavor", _FLAVOR)
_FLAVOR_255 = copy.deepcopy(_FLAVOR)
_FLAVOR_255["properties"]["description"] = DESCRIPTION
FLAVOR_CREATE_255 = _wrap("flavor", _FLAVOR_255)
FLAVOR_UPDATE = _wrap("flavor", _obj({"description": DESCRIPTION}, ["description"]))

SPEC_KEY = r"^[a-zA-Z0-9-_:. ]{1,255}$"
_SPEC_VALUE = {"type": ["string", "number", "boolean"], "minLength": 0, "maxLength": 255}
EXTRA_SPECS = _obj(
    {"extra_specs": {"type": "object", "patternProperties": {SPEC_KEY: _SPEC_VALUE},
                     "additionalProperties": False}},
    ["extra_specs"],
)  # fmt: skip
EXTRA_SPEC_ONE = {"type": "object", "patternProperties": {SPEC_KEY: _SPEC_VALUE},
                  "additionalProperties": False, "minProperties": 1,
                  "maxProperties": 1}  # fmt: skip

_TENANT = _obj({"tenant": {"type": "string", "minLength": 1, "maxLength": 255}}, ["tenant"])
ADD_TENANT = _wrap("addTenantAccess", _TENANT)
REMOVE_TENANT = _wrap("removeTenantAccess", _TENANT)

KEYPAIR_NAME = {"type": "string", "minLength": 1, "maxLength": 255,
                "pattern": r"^[a-zA-Z0-9 _@.-]+$"}  # fmt: skip
_KEYPAIR = {"name": KEYPAIR_NAME, "public_key": {"type": "string"}}
KEYPAIR_CREATE = _wrap("keypair", _obj(_KEYPAIR, ["name"]))
KEYPAIR_CREATE_22 = _wrap(
    "keypair", _obj({**_KEYPAIR, "type": {"type": "string", "enum": ["ssh", "x509"]}}, ["name"])
)
KEYPAIR_CREATE_210 = _wrap(
    "keypair",
    _obj({**_KEYPAIR, "type": {"type": "string", "enum": ["ssh", "x509"]},
          "user_id": {"type": "string"}}, ["name"]),
)  # fmt: skip

KEYPAIR_CREATE_292 = _wrap(
    "keypair",
    _obj({**_KEYPAIR, "type": {"type": "string", "enum": ["ssh", "x509"]},
          "user_id": {"type": "string"}}, ["name", "public_key"]),
)  # fmt: skip  # 2.92: import only, the server no longer generates private keys

_LIMIT = {"type": ["integer", "string"], "pattern": "^-?[0-9]+$", "minimum": -1,
          "maximum": 2147483647}  # fmt: skip
_QUOTA_RESOURCES = ("instances", "cores", "ram", "metadata_items", "injected_files",
                    "injected_file_content_bytes", "injected_file_path_bytes", "key_pairs",
                    "server_groups", "server_group_members", "floating_ips", "fixed_ips",
                    "security_groups", "security_group_rules", "networks")  # fmt: skip


def quota_update(resources: tuple[str, ...]) -> dict[str, Any]:
    props: dict[str, Any] = {name: _LIMIT for name in resources}
    props["force"] = {"type": ["boolean", "string"]}
    return _wrap("quota_set", _obj(props, []))


QUOTA_UPDATE = quota_update(_QUOTA_RESOURCES)


def quota_class_update(resources: tuple[str, ...]) -> dict[str, Any]:
    """Nova's quota class body: the limits only (no force), nothing unknown."""
    return _wrap("quota_class_set", _obj({name: _LIMIT for name in resources}, []))


_POLICIES = ["anti-affinity", "affinity", "soft-anti-affinity", "soft-affinity"]
SERVER_GROUP_CREATE = _wrap(
    "server_group",
    _obj({"name": NAME, "policies": {"type": "array", "items": {"type": "string",
          "enum": ["anti-affinity", "affinity"]}, "minItems": 1, "maxItems": 1,
          "uniqueItems": True}}, ["name", "policies"]),
)  # fmt: skip
SERVER_GROUP_CREATE_215 = copy.deepcopy(SERVER_GROUP_CREATE)
SERVER_GROUP_CREATE_215["properties"]["server_group"]["properties"]["policies"]["items"]["enum"] = (
    _POLICIES
)
SERVER_GROUP_CREATE_264 = _wrap(
    "server_group",
    _obj({"name": NAME, "policy": {"type": "string", "enum": _POLICIES},
          "rules": {"type": "object", "properties": {"max_server_per_host": POSITIVE},
                    "additionalProperties": False}}, ["name", "policy"]),
)  # fmt: skip

SERVICE_UPDATE_253 = _obj(
    {"status": {"type": "string", "enum": ["enabled", "disabled"]},
     "disabled_reason": {"type": "string", "minLength": 1, "maxLength": 255},
     "forced_down": {"type": "boolean"}},
    [],
)  # fmt: skip
SERVICE_HOST_BINARY = _obj(
    {"host": {"type": "string", "minLength": 1, "maxLength": 255},
     "binary": {"type": "string", "minLength": 1, "maxLength": 255},
     "disabled_reason": {"type": "string", "minLength": 1, "maxLength": 255},
     "forced_down": {"type": "boolean"}},
    ["host", "binary"],
)  # fmt: skip
