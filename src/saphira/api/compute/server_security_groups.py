"""A server's security groups: GET /servers/{id}/os-security-groups and the
addSecurityGroup / removeSecurityGroup actions (every microversion, as Nova).

With Neutron a server has no groups of its own: they are its ports' groups,
so adding or removing one changes every port of the server, with the
caller's token (nova.network.security_group_api.add_to_instance).
"""

from __future__ import annotations

from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import network_proxy as proxy
from saphira.api.compute import server_lookup
from saphira.api.compute.app import Call, route
from saphira.api.compute.security_group_views import group_views, server_groups
from saphira.api.wsgi import json_response, validate
from saphira.clients.network import NetworkClient
from saphira.exception import BadRequest, Conflict, NotFound
from saphira.objects import Instance

_NAME = {
    "type": "object", "properties": {"name": {"type": "string", "minLength": 1}},
    "required": ["name"], "additionalProperties": False,
}  # fmt: skip


def _server(call: Call, server_id: str, rule: str) -> Instance:
    instance = server_lookup.locate(call, server_id).instance
    call.enforce(f"os_compute_api:os-security-groups:{rule}",
                 {"project_id": instance.project_id, "user_id": instance.user_id})  # fmt: skip
    return instance


def index(call: Call, server_id: str) -> Response:
    _server(call, server_id, "list")
    client = proxy.client(call)
    groups = server_groups(client, [server_id], detailed=True).get(server_id, [])
    return json_response({"security_groups": group_views(client, groups)})


def add(call: Call, server_id: str, _key: str, body: Any) -> Response:
    name = _name(body)
    instance = _server(call, server_id, "add")
    client = proxy.client(call)
    group_id = _find(call, client, name)
    ports = _ports(client, instance)
    if not all(_applicable(port) for port in ports):
        raise BadRequest("Network requires port_security_enabled and subnet associated in order "
                         "to apply security groups.")  # fmt: skip
    for port in ports:
        groups = list(port.get("security_groups") or [])
        if group_id not in groups:
            with proxy.refused({400: BadRequest, 409: Conflict}):
                client.update_port(port["id"], {"security_groups": [*groups, group_id]})
    return Response(status=202)


def remove(call: Call, server_id: str, _key: str, body: Any) -> Response:
    name = _name(body)
    instance = _server(call, server_id, "remove")
    client = proxy.client(call)
    group_id = _find(call, client, name)
    holding = [p for p in _ports(client, instance) if group_id in (p.get("security_groups") or [])]
    if not holding:
        raise NotFound(f"Security group {name} not associated with the instance {instance.uuid}")
    for port in holding:
        groups = [group for group in port["security_groups"] if group != group_id]
        client.update_port(port["id"], {"security_groups": groups})
    return Response(status=202)


def _name(body: Any) -> str:
    if not isinstance(body, dict):
        raise BadRequest("Missing parameter dict")
    validate(body, _NAME)
    name = str(body["name"])
    if not name.strip():
        raise BadRequest("Security group name cannot be empty")
    return name


def _find(call: Call, client: NetworkClient, name: str) -> str:
    """By id first, then by name among the caller's project's groups."""
    if proxy.is_uuid(name) and (found := client.list_security_groups(id=name)):
        return str(found[0]["id"])
    project = call.context.project_id or ""
    named = client.list_security_groups(name=name, tenant_id=project)
    if not named:
        raise NotFound(f"Security group {name} is not found for project {project}")
    if len(named) > 1:
        raise Conflict(f"Multiple security_group matches found for name '{name}', use an ID "
                       "to be more specific.")  # fmt: skip
    return str(named[0]["id"])


def _ports(client: NetworkClient, instance: Instance) -> list[dict[str, Any]]:
    ports = client.list_ports(device_id=instance.uuid)
    if not ports:
        raise NotFound(f"instance_id {instance.uuid} could not be found as device id on any ports")
    return ports


def _applicable(port: dict[str, Any]) -> bool:
    """A port with an address (or one to come) and port security on (Nova's rule)."""
    addressed = port.get("fixed_ips") or port.get("ip_allocation") == "deferred"
    return bool(addressed) and port.get("port_security_enabled", True) is not False


def routes() -> list[Rule]:
    return route("/servers/<server_id>/os-security-groups", ["GET"], index)
