"""The network API (Neutron v2.0): bodies from its attribute maps.

Neutron checks bodies with converters, not JSON Schema; ``_schema`` reads
each converter (and the values its factory closed over) as the schema of what
it accepts.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping

from saphira.api import network
from saphira.api.network import agents, networks, ports, secgroups, subnets
from saphira.api.network import attributes as attrs
from saphira.api.openapi import network_answers
from saphira.api.openapi.model import ApiSpec, Body, Link, Query, Schema

FAULT: Schema = {
    "type": "object",
    "required": ["NeutronError"],
    "properties": {
        "NeutronError": {
            "type": "object",
            "required": ["type", "message", "detail"],
            "properties": {
                "type": {"type": "string"},
                "message": {"type": "string"},
                "detail": {"type": "string"},
            },
        }
    },
}
_BOOLEAN: Schema = {
    "anyOf": [{"type": "boolean"}, {"enum": ["true", "false", "True", "False", "1", "0", 1, 0]}]
}
_SIMPLE: dict[str, Schema] = {
    "anything": {},
    "boolean": _BOOLEAN,
    "ip_version": {"enum": [4, 6, "4", "6"]},
    "uuid_text": {"type": "string", "format": "uuid"},
    "a_dict": {"type": "object"},
}


def _integer(low: int | None, high: int | None) -> Schema:
    schema: Schema = {"type": "integer"}
    if low is not None:
        schema["minimum"] = low
    if high is not None:
        schema["maximum"] = high
    return schema


def _schema(convert: attrs.Convert) -> Schema:
    """What the converter accepts; ``{}`` (anything) for one this does not know."""
    if convert.__name__ in _SIMPLE:
        return _SIMPLE[convert.__name__]
    factory = convert.__qualname__.split(".", 1)[0]
    bound = inspect.getclosurevars(convert).nonlocals
    if factory == "string":
        return {"type": "string", "maxLength": bound["limit"]}
    if factory == "integer":
        return _integer(bound.get("low"), bound.get("high"))
    if factory == "nullable":
        return {"anyOf": [{"type": "null"}, _schema(bound["inner"])]}
    if factory == "one_of":
        return {"enum": list(bound["choices"])}
    if factory == "list_of":
        return {"type": "array", "items": _schema(bound["item"])}
    if factory == "dict_of":
        keys, required = bound["keys"], bound.get("required", ())
        props: Schema = {key: {} for key in keys}
        return {"type": "object", "properties": props, "required": list(required),
                "additionalProperties": False}  # fmt: skip
    return {}


def body(key: str, spec: Mapping[str, attrs.Attr], *, update: bool) -> Body:
    """``{key: {...}}`` with the attributes a POST (or a PUT) may set."""
    allowed = {n: a for n, a in spec.items() if (a.put if update else a.post)}
    inner: Schema = {
        "type": "object",
        "properties": {name: _schema(attr.convert) for name, attr in allowed.items()},
        "additionalProperties": False,
    }
    required = [] if update else [n for n, a in allowed.items() if a.required]
    if required:
        inner["required"] = required
    return Body({"type": "object", "properties": {key: inner}, "required": [key]})


def _crud(
    path: str, param: str, key: str, spec: Mapping[str, attrs.Attr]
) -> dict[tuple[str, str], Body]:
    return {
        ("POST", path): body(key, spec, update=False),
        ("PUT", f"{path}/<{param}>"): body(key, spec, update=True),
    }


_QUOTA: Schema = {
    "type": "object",
    "required": ["quota"],
    "properties": {
        "quota": {"type": "object", "additionalProperties": {"type": ["integer", "string"]}}
    },
}
BODIES: dict[tuple[str, str], Body] = {
    **_crud("/v2.0/networks", "net_id", "network", networks.SPEC),
    **_crud("/v2.0/subnets", "subnet_id", "subnet", subnets.SPEC),
    **_crud("/v2.0/ports", "port_id", "port", ports.SPEC),
    **_crud("/v2.0/security-groups", "group_id", "security_group", secgroups.GROUP_SPEC),
    ("POST", "/v2.0/security-group-rules"): body(
        "security_group_rule", secgroups.RULE_SPEC, update=False
    ),
    ("PUT", "/v2.0/agents/<agent_id>"): body("agent", agents.SPEC, update=True),
    ("PUT", "/v2.0/quotas/<project_id>"): Body(_QUOTA),
}


_PAGING = (
    Query("limit", {"type": "integer", "minimum": 0}),
    Query("marker", {"type": "string"}),
    Query("page_reverse", {"type": "string"}),  # "true" in any case, else false (Neutron's)
    Query("sort_dir", {"enum": ["asc", "desc"]}),
)
QUERY = {
    ("GET", f"/v2.0/{name}"): _PAGING
    for name in ("networks", "subnets", "ports", "security-groups", "security-group-rules")
}


def _link(collection: str, param: str, key: str) -> Link:
    path = f"/v2.0/{collection}"
    return Link(path, f"{path}/{{{param}}}", param, f"/{key}/id")


SPEC = ApiSpec(
    name="network",
    title="Saphira network API (Neutron v2.0)",
    version="2.0",
    routes=network.routes,
    bodies=BODIES,
    links=(
        _link("networks", "net_id", "network"),
        _link("subnets", "subnet_id", "subnet"),
        _link("ports", "port_id", "port"),
        _link("security-groups", "group_id", "security_group"),
        _link("security-group-rules", "rule_id", "security_group_rule"),
    ),
    fault=FAULT,
    query=QUERY,
    responses=network_answers.ANSWERS,
)
