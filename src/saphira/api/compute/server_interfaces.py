"""/servers/{id}/os-interface: a server's ports, and NICs attached and detached.

Listing and showing ask the network service, with the caller's token, for
the ports whose device is the server (Nova's way); the tag (2.70) comes from
the info cache. An attach is a call to the server's host, answered once the
guest has the NIC; the API then shows the port. A detach is a cast. Both are
refused in the states Nova refuses them (the transition table's rows), and
recorded as instance actions whose events the host adds.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import network_checks, server_lookup
from saphira.api.compute import network_proxy as proxy
from saphira.api.compute.app import Call, route
from saphira.api.compute.server_actions import run
from saphira.api.wsgi import json_response
from saphira.domain.table import Action
from saphira.exception import BadRequest, Forbidden, NotFound
from saphira.objects import Instance, InstanceVIF

ATTACH_MARGIN = 60  # seconds of an attach call beyond the wait for the port
_IP = {
    "type": "object", "properties": {"ip_address": {"type": "string"}},
    "required": ["ip_address"], "additionalProperties": False,
}  # fmt: skip
_ATTACHMENT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "net_id": {"type": "string"}, "port_id": {"type": "string"},
        "fixed_ips": {"type": "array", "minItems": 1, "maxItems": 1, "items": _IP},
    },
    "additionalProperties": False,
}  # fmt: skip
_TAG = {"type": "string", "maxLength": 60, "pattern": "^[^,/]*$"}


def attach_schema(at_least: Callable[[str], bool]) -> dict[str, Any]:
    """The body of an attach at a microversion (``at_least``: is it at least this one)."""
    properties = dict(_ATTACHMENT["properties"])
    if at_least("2.49"):
        properties["tag"] = _TAG
    attachment = {**_ATTACHMENT, "properties": properties}
    return {"type": "object", "properties": {"interfaceAttachment": attachment},
            "additionalProperties": False}  # fmt: skip


def _located(call: Call, server_id: str, rule: str) -> server_lookup.Located:
    found = server_lookup.locate(call, server_id)
    call.enforce(f"os_compute_api:os-attach-interfaces:{rule}",
                 {"project_id": found.instance.project_id,
                  "user_id": found.instance.user_id})  # fmt: skip
    return found


def _view(call: Call, port: dict[str, Any], vifs: list[InstanceVIF]) -> dict[str, Any]:
    view = {
        "net_id": port["network_id"], "port_id": port["id"], "mac_addr": port["mac_address"],
        "port_state": port["status"], "fixed_ips": port.get("fixed_ips"),
    }  # fmt: skip
    if call.at_least("2.70"):
        view["tag"] = next((vif.tag for vif in vifs if vif.port_id == port["id"]), None)
    return view


def _port(call: Call, server_id: str, port_id: str) -> dict[str, Any]:
    with proxy.refused({403: Forbidden}):
        try:
            port = proxy.client(call).show_port(port_id)
        except NotFound:
            raise NotFound(f"Port id {port_id} could not be found.") from None
    if port.get("device_id") != server_id:
        raise NotFound(f"Instance {server_id} does not have a port with id {port_id}")
    return port


def index(call: Call, server_id: str) -> Response:
    vifs = _located(call, server_id, "list").instance.network_info
    ports = proxy.client(call).list_ports(device_id=server_id)
    return json_response({"interfaceAttachments": [_view(call, p, vifs) for p in ports]})


def show(call: Call, server_id: str, port_id: str) -> Response:
    vifs = _located(call, server_id, "show").instance.network_info
    port = _port(call, server_id, port_id)
    return json_response({"interfaceAttachment": _view(call, port, vifs)})


def create(call: Call, server_id: str) -> Response:
    asked = call.body(attach_schema(call.at_least)).get("interfaceAttachment") or {}
    network_id, port_id = asked.get("net_id"), asked.get("port_id")
    address = asked["fixed_ips"][0]["ip_address"] if asked.get("fixed_ips") else None
    _check_formats(network_id, port_id, address)
    found = _located(call, server_id, "create")
    if network_id and port_id:
        raise BadRequest("Must not input both network_id and port_id")
    if address and not network_id:
        raise BadRequest("Must input network_id when request IP address")
    network_checks.check_attach(call, found.instance, network_id, port_id, address)
    run(call, found, Action.ATTACH_INTERFACE)
    vif = call.state.servers.compute.attach_interface(
        call.context, found.instance, network_id, port_id, address, asked.get("tag"),
        timeout=call.state.conf.vif_plugging_timeout + ATTACH_MARGIN,
    )  # fmt: skip
    port = _port(call, server_id, vif.port_id)
    return json_response({"interfaceAttachment": _view(call, port, [vif])})


def delete(call: Call, server_id: str, port_id: str) -> Response:
    found = _located(call, server_id, "delete")
    _attached(found.instance, port_id)
    run(call, found, Action.DETACH_INTERFACE)
    call.state.servers.compute.detach_interface(call.context, found.instance, port_id)
    return Response(status=202)


def _attached(instance: Instance, port_id: str) -> None:
    """Nova only finds out on the host (and answers 202 anyway); the info cache
    knows already, so the caller hears it."""
    if not any(vif.port_id == port_id for vif in instance.network_info):
        raise NotFound(f"Port {port_id} is not attached")


def _check_formats(network_id: str | None, port_id: str | None, address: str | None) -> None:
    for field, value in (("net_id", network_id), ("port_id", port_id)):
        if value is not None and not proxy.is_uuid(value):
            raise BadRequest(f"Invalid input for field/attribute {field}. Value: {value}. "
                             f"'{value}' is not a 'uuid'")  # fmt: skip
    if address is not None:
        try:
            ipaddress.ip_address(address)
        except ValueError:
            raise BadRequest(f"Invalid input for field/attribute ip_address. Value: {address}. "
                             f"'{address}' is not a valid IP address") from None  # fmt: skip


def routes() -> list[Rule]:
    path = "/servers/<server_id>/os-interface"
    return [
        *route(path, ["GET"], index),
        *route(path, ["POST"], create),
        *route(f"{path}/<port_id>", ["GET"], show),
        *route(f"{path}/<port_id>", ["DELETE"], delete),
    ]
