"""The compute API (Nova v2.1): its request bodies at the newest microversion and its
success answers (the compute_*answers tables)."""

from __future__ import annotations

from saphira.api import compute
from saphira.api.compute import (
    compute_join,
    consoles,
    instance_actions,
    microversion,
    schemas,
    security_groups,
    server_interfaces,
    server_metadata,
    server_query,
    server_schemas,
)
from saphira.api.compute.app import Endpoint
from saphira.api.openapi import (
    compute_admin_answers,
    compute_answers,
    compute_proxy_answers,
    compute_server_answers,
)
from saphira.api.openapi.model import ApiSpec, Body, Header, Link, Query, Schema
from saphira.computesvc import quota
from saphira.domain.join_token import REDEEM_PATH


def _newest(_version: str) -> bool:
    return True


_INJECTED = ("injected_files", "injected_file_content_bytes", "injected_file_path_bytes")
_ACTION: Schema = {"type": "object", "minProperties": 1, "maxProperties": 1}
FAULT: Schema = {
    "type": "object",
    "minProperties": 1,
    "maxProperties": 1,
    "additionalProperties": {
        "type": "object",
        "required": ["code", "message"],
        "properties": {"code": {"type": "integer"}, "message": {"type": "string"}},
    },
}
_SERVERS = "/v2.1/servers/<server_id>"
_EVENTS = "/v2.1/os-server-external-events"
BODIES: dict[tuple[str, str], Body] = {
    ("POST", REDEEM_PATH): Body(compute_join.SCHEMA),
    ("POST", "/v2.1/flavors"): Body(schemas.FLAVOR_CREATE_255),
    ("PUT", "/v2.1/flavors/<flavor_id>"): Body(schemas.FLAVOR_UPDATE),
    ("POST", "/v2.1/flavors/<flavor_id>/os-extra_specs"): Body(schemas.EXTRA_SPECS),
    ("PUT", "/v2.1/flavors/<flavor_id>/os-extra_specs/<key>"): Body(schemas.EXTRA_SPEC_ONE),
    ("POST", "/v2.1/flavors/<flavor_id>/action"): Body(
        {"oneOf": [schemas.ADD_TENANT, schemas.REMOVE_TENANT]}
    ),
    ("POST", "/v2.1/os-keypairs"): Body(schemas.KEYPAIR_CREATE_292),
    ("PUT", "/v2.1/os-quota-sets/<tenant_id>"): Body(schemas.QUOTA_UPDATE),
    ("PUT", "/v2.1/os-quota-class-sets/<class_name>"): Body(
        schemas.quota_class_update(tuple(n for n in quota.RESOURCES if n not in _INJECTED))
    ),
    ("POST", "/v2.1/os-server-groups"): Body(schemas.SERVER_GROUP_CREATE_264),
    ("PUT", "/v2.1/os-services/<service_id>"): Body(schemas.SERVICE_UPDATE_253),
    ("POST", "/v2.1/servers"): Body(server_schemas.server_create(_newest)),
    ("PUT", _SERVERS): Body(server_schemas.server_update(_newest)),
    ("POST", f"{_SERVERS}/action"): Body(_ACTION),
    ("POST", f"{_SERVERS}/remote-consoles"): Body(consoles.REMOTE_CONSOLE_BODY),
    ("POST", f"{_SERVERS}/metadata"): Body(server_metadata.METADATA_BODY),
    ("PUT", f"{_SERVERS}/metadata"): Body(server_metadata.METADATA_BODY),
    ("PUT", f"{_SERVERS}/metadata/<key>"): Body(server_metadata.META_BODY),
    ("PUT", f"{_SERVERS}/tags"): Body(server_metadata.TAGS_BODY),
    ("POST", f"{_SERVERS}/os-interface"): Body(server_interfaces.attach_schema(_newest)),
    ("POST", _EVENTS): Body(instance_actions.EXTERNAL_EVENTS_BODY),
    ("POST", "/v2.1/os-security-groups"): Body(security_groups.GROUP_BODY),
    ("PUT", "/v2.1/os-security-groups/<group_id>"): Body(security_groups.GROUP_BODY),
    ("POST", "/v2.1/os-security-group-rules"): Body(security_groups.RULE_BODY),
}
# What each operation answers on success (and a batch of events whose servers are gone).
RESPONSES = {
    **compute_answers.ANSWERS,
    **compute_server_answers.ANSWERS,
    **compute_admin_answers.ANSWERS,
    **compute_proxy_answers.ANSWERS,
}
_LIMIT = Query("limit", {"type": "integer", "minimum": 0})
_PAGED = (_LIMIT, Query("marker", {"type": "string"}))
# The servers' filters and sort, each read as text (a time, a number or a flag is parsed
# from it, and a 400 says when it cannot be).
_SERVER_QUERY = (*_PAGED, *(Query(name, {"type": "string"}) for name in sorted(
    server_query.newest() - {"limit", "marker"})))  # fmt: skip
QUERY: dict[tuple[str, str], tuple[Query, ...]] = {
    ("GET", "/v2.1/servers"): _SERVER_QUERY,
    ("GET", "/v2.1/servers/detail"): _SERVER_QUERY,
    ("GET", "/v2.1/flavors"): _PAGED,
    ("GET", "/v2.1/flavors/detail"): _PAGED,
    ("GET", "/v2.1/os-keypairs"): _PAGED,
    ("GET", "/v2.1/os-server-groups"): (_LIMIT, Query("offset", {"type": "integer", "minimum": 0})),
    ("GET", "/v2.1/os-security-groups"): (_LIMIT,),
}
_TWIN = "/v2.1/<project_id>/"


def _plain(rule: str) -> str:
    """/v2.1/<project_id>/servers shares /v2.1/servers' body."""
    return "/v2.1/" + rule.removeprefix(_TWIN) if rule.startswith(_TWIN) else rule


def _link(collection: str, param: str, pointer: str) -> Link:
    return Link(collection, f"{collection}/{{{param}}}", param, pointer)


SPEC = ApiSpec(
    name="compute",
    title="Saphira compute API (Nova v2.1)",
    version=str(microversion.MAX),
    routes=compute.routes,
    bodies=BODIES,
    public=lambda rule: isinstance(rule.endpoint, Endpoint) and rule.endpoint.public,
    headers=(
        Header(
            microversion.HEADER,
            "The microversion, e.g. 'compute 2.96' or 'compute latest': comma-separated"
            " 'service version' entries of which only compute's counts (none: 2.1)",
        ),
    ),
    links=(
        _link("/v2.1/servers", "server_id", "/server/id"),
        _link("/v2.1/flavors", "flavor_id", "/flavor/id"),
        _link("/v2.1/os-keypairs", "keypair_name", "/keypair/name"),
        _link("/v2.1/os-server-groups", "group_id", "/server_group/id"),
        _link("/v2.1/os-security-groups", "group_id", "/security_group/id"),
    ),
    fault=FAULT,
    responses=RESPONSES,
    query=QUERY,
    rule_key=_plain,
)
