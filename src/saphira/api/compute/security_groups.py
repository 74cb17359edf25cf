"""/os-security-groups and /os-security-group-rules: the network service's
groups through Nova's proxy, with the caller's token, up to 2.35 (a 404 from
2.36 on, as Nova). A group in use or the default group cannot be deleted (the
service's conflict is Nova's 400); a quota the service enforces is Nova's 403.
"""

from __future__ import annotations

from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import network_proxy as proxy
from saphira.api.compute import security_group_rules as rules
from saphira.api.compute.app import Call, max_version, route
from saphira.api.compute.common import MAX_LIMIT, query_int
from saphira.api.compute.security_group_views import group_views, ref, rule_view
from saphira.api.wsgi import json_response
from saphira.clients.network import NetworkClient
from saphira.exception import BadRequest, Conflict, Forbidden, NotFound

_TEXT = {"type": "string", "maxLength": 255}
GROUP_BODY = {
    "type": "object",
    "properties": {"security_group": {
        "type": "object", "properties": {"name": _TEXT, "description": _TEXT},
        "required": ["name", "description"],
    }},
    "required": ["security_group"],
}  # fmt: skip
RULE_BODY = {
    "type": "object",
    "properties": {"security_group_rule": {
        "type": "object",
        "properties": {"group_id": {"type": ["string", "null"]},
                       "parent_group_id": {"type": "string"}},
        "required": ["parent_group_id"],
    }},
    "required": ["security_group_rule"],
}  # fmt: skip
_NOT_UUID = "Security group id should be uuid"


def _enforce(call: Call, rule: str) -> NetworkClient:
    call.enforce(f"os_compute_api:os-security-groups:{rule}")
    return proxy.client(call)


def _get(client: NetworkClient, group_id: str) -> dict[str, Any]:
    with proxy.refused({404: NotFound}):
        return client.show_security_group(group_id)


def _one(client: NetworkClient, group: dict[str, Any]) -> Response:
    return json_response({"security_group": group_views(client, [group])[0]})


@max_version(proxy.MAX_PROXY)
def index(call: Call) -> Response:
    client = _enforce(call, "get")
    everyone = call.context.is_admin and "all_tenants" in call.request.args
    filters = {} if everyone else {"tenant_id": call.context.project_id or ""}
    groups = client.list_security_groups(**filters)
    offset = query_int(call, "offset") or 0
    limit = min(query_int(call, "limit") or MAX_LIMIT, MAX_LIMIT)
    return json_response({"security_groups": group_views(client, groups[offset:][:limit])})


@max_version(proxy.MAX_PROXY)
def show(call: Call, group_id: str) -> Response:
    client = _enforce(call, "show")
    return _one(client, _get(client, proxy.check_uuid(group_id, _NOT_UUID)))


@max_version(proxy.MAX_PROXY)
def create(call: Call) -> Response:
    data = call.body(GROUP_BODY)["security_group"]
    client = _enforce(call, "create")
    with proxy.refused({400: BadRequest, 409: Forbidden}):
        made = client.create_security_group(
            {"name": data["name"], "description": data["description"]}
        )
    return _one(client, made)


@max_version(proxy.MAX_PROXY)
def update(call: Call, group_id: str) -> Response:
    data = call.body(GROUP_BODY)["security_group"]
    client = _enforce(call, "update")
    group = _get(client, proxy.check_uuid(group_id, _NOT_UUID))
    with proxy.refused({400: BadRequest, 404: NotFound, 409: BadRequest}):
        changed = client.update_security_group(
            group["id"], {"name": data["name"], "description": data["description"]}
        )
    return _one(client, changed)


@max_version(proxy.MAX_PROXY)
def delete(call: Call, group_id: str) -> Response:
    client = _enforce(call, "delete")
    group = _get(client, proxy.check_uuid(group_id, _NOT_UUID))
    with proxy.refused({404: NotFound, 409: BadRequest}):
        client.delete_security_group(group["id"])
    return Response(status=202)


@max_version(proxy.MAX_PROXY)
def create_rule(call: Call) -> Response:
    data = call.body(RULE_BODY)["security_group_rule"]
    client = _enforce(call, "rule:create")
    parent_id = proxy.check_uuid(data["parent_group_id"], _bad_id("parent_group_id", data))
    group_id = data.get("group_id")
    if group_id is not None:
        proxy.check_uuid(group_id, _bad_id("group_id", data))
    parent = _get(client, parent_id)
    remote = {group_id: ref(_get(client, group_id))} if group_id else {}
    new = rules.ingress_rule(data)
    ingress = [r for r in parent.get("security_group_rules") or [] if r["direction"] == "ingress"]
    if rules.exists([rules.nova_form(rule) for rule in ingress], new):
        raise BadRequest(f"This rule already exists in group {parent_id}")
    with proxy.refused({400: BadRequest, 404: NotFound, 409: Forbidden}):
        made = client.create_security_group_rule(rules.neutron_rule(new, parent_id))
    return json_response({"security_group_rule": rule_view(made, remote)})


@max_version(proxy.MAX_PROXY)
def delete_rule(call: Call, rule_id: str) -> Response:
    client = _enforce(call, "rule:delete")
    with proxy.refused({404: NotFound}):
        rule = client.show_security_group_rule(proxy.check_uuid(rule_id, _NOT_UUID))
    _get(client, rule["security_group_id"])
    with proxy.refused({404: NotFound, 409: Conflict}):
        client.delete_security_group_rule(rule["id"])
    return Response(status=202)


def _bad_id(field: str, data: dict[str, Any]) -> str:
    value = data[field]
    return f"Invalid input for field/attribute {field}. Value: {value}. '{value}' is not a 'uuid'"


def routes() -> list[Rule]:
    groups, group_rules = "/os-security-groups", "/os-security-group-rules"
    return [
        *route(groups, ["GET"], index),
        *route(groups, ["POST"], create),
        *route(f"{groups}/<group_id>", ["GET"], show),
        *route(f"{groups}/<group_id>", ["PUT"], update),
        *route(f"{groups}/<group_id>", ["DELETE"], delete),
        *route(group_rules, ["POST"], create_rule),
        *route(f"{group_rules}/<rule_id>", ["DELETE"], delete_rule),
    ]
