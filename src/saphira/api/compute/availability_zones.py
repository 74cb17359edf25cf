"""/os-availability-zone: the zones with a usable service, and per host for admins.

Zones come from the services the cells report: compute hosts are in
[DEFAULT] default_availability_zone ("nova"), other services in the internal
zone, which only the detail view shows (as Nova does). With no compute
service yet, the default zone is still listed so clients have a zone to pick.
"""

from __future__ import annotations

from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import hosts
from saphira.api.compute.app import Call, route
from saphira.api.wsgi import json_response


def _zones(call: Call) -> dict[str, dict[str, dict[str, Any]]]:
    zones: dict[str, dict[str, dict[str, Any]]] = {}
    for entry in hosts.services(call):
        service = entry.service
        when = service.updated_at or service.created_at
        host = zones.setdefault(hosts.zone(call, service), {}).setdefault(service.host, {})
        host[service.binary] = {
            "available": hosts.is_up(call, service),
            "active": not service.disabled,
            "updated_at": when.isoformat() if when else None,
        }
    return zones


def _available(hosts_in_zone: dict[str, dict[str, Any]]) -> bool:
    return any(s["available"] and s["active"] for svcs in hosts_in_zone.values()
               for s in svcs.values())  # fmt: skip


def index(call: Call) -> Response:
    call.enforce("os_compute_api:os-availability-zone:list")
    zones = _zones(call)
    internal = call.state.conf.internal_service_availability_zone
    default = call.state.conf.default_availability_zone
    info = [
        {"zoneName": name, "zoneState": {"available": _available(found)}, "hosts": None}
        for name, found in sorted(zones.items())
        if name != internal
    ]
    if not info:
        info = [{"zoneName": default, "zoneState": {"available": True}, "hosts": None}]
    return json_response({"availabilityZoneInfo": info})


def detail(call: Call) -> Response:
    call.enforce("os_compute_api:os-availability-zone:detail")
    zones = _zones(call)
    info: list[dict[str, Any]] = [
        {"zoneName": name, "zoneState": {"available": _available(found)}, "hosts": found}
        for name, found in sorted(zones.items())
    ]
    default = call.state.conf.default_availability_zone
    if default not in zones:  # as in the list: clients always have a zone to pick
        info.insert(0, {"zoneName": default, "zoneState": {"available": True}, "hosts": None})
    return json_response({"availabilityZoneInfo": info})


def routes() -> list[Rule]:
    return [
        *route("/os-availability-zone", ["GET"], index),
        *route("/os-availability-zone/detail", ["GET"], detail),
    ]
