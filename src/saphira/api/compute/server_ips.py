"""/servers/{id}/ips and /servers/{id}/ips/{network}: version and address only."""

from __future__ import annotations

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import server_lookup
from saphira.api.compute.addresses import by_network
from saphira.api.compute.app import Call, route
from saphira.api.wsgi import json_response
from saphira.exception import NotFound
from saphira.objects import Instance


def _server(call: Call, server_id: str, rule: str) -> Instance:
    instance = server_lookup.locate(call, server_id).instance
    call.enforce(rule, {"project_id": instance.project_id, "user_id": instance.user_id})
    return instance


def index(call: Call, server_id: str) -> Response:
    instance = _server(call, server_id, "os_compute_api:ips:index")
    return json_response({"addresses": by_network(instance, extended=False)})


def show(call: Call, server_id: str, network: str) -> Response:
    instance = _server(call, server_id, "os_compute_api:ips:show")
    found = by_network(instance, extended=False)
    if network not in found:
        raise NotFound("Instance is not a member of specified network")
    return json_response({network: found[network]})


def routes() -> list[Rule]:
    return [
        *route("/servers/<server_id>/ips", ["GET"], index),
        *route("/servers/<server_id>/ips/<network>", ["GET"], show),
    ]
