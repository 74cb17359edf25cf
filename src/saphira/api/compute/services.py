"""/os-services: list (2.11 forced_down, 2.53 UUID ids), update, delete.

Before 2.53 the updates are the verbs ``enable``, ``disable``,
``disable-log-reason`` and ``force-down`` with host and binary in the body;
from 2.53 one ``PUT /os-services/{uuid}`` carries status, reason, forced_down.
"""

from __future__ import annotations

from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import hosts, schemas
from saphira.api.compute.app import Call, max_version, min_version, route
from saphira.api.compute.hosts import HostService
from saphira.api.wsgi import json_response
from saphira.computesvc import hosts as store
from saphira.computesvc.hosts import Service
from saphira.exception import BadRequest, NotFound


def _time(service: Service) -> str | None:
    value = service.updated_at or service.created_at
    return value.isoformat() if value is not None else None


def view(call: Call, entry: HostService, mapped: dict[str, str] | None = None) -> dict[str, Any]:
    service = entry.service
    mapped = hosts.mapped_hosts(call) if mapped is None else mapped
    body: dict[str, Any] = {
        "id": service.uuid if call.at_least("2.53") else service.id,
        "binary": service.binary, "host": service.host, "zone": hosts.zone(call, service),
        "status": "disabled" if service.disabled else "enabled",
        "state": "up" if hosts.is_up(call, service) else "down",
        "updated_at": _time(service),
        "disabled_reason": hosts.disabled_reason(service, entry.cell, mapped),
    }  # fmt: skip
    if call.at_least("2.11"):
        body["forced_down"] = service.forced_down
    return body


def index(call: Call) -> Response:
    call.enforce("os_compute_api:os-services:list")
    host, binary = call.request.args.get("host"), call.request.args.get("binary")
    found = [
        entry
        for entry in hosts.services(call)
        if (host is None or entry.service.host == host)
        and (binary is None or entry.service.binary == binary)
    ]
    mapped = hosts.mapped_hosts(call)
    return json_response({"services": [view(call, entry, mapped) for entry in found]})


def _find(call: Call, **match: Any) -> HostService:
    for entry in hosts.services(call):
        if all(getattr(entry.service, key) == value for key, value in match.items()):
            return entry
    if "uuid" in match:
        raise NotFound(f"Service {match['uuid']} could not be found.")
    raise NotFound(f"Service {match.get('binary')} on host {match.get('host')} could not be found.")


def _write(call: Call, entry: HostService, **values: Any) -> HostService:
    return store.update_service(call.svc, entry, **values)


@min_version("2.53")
def update(call: Call, service_id: str) -> Response:
    call.enforce("os_compute_api:os-services:update")
    data = call.body(schemas.SERVICE_UPDATE_253)
    if not data:
        raise BadRequest("No updates were requested. Fields 'status' or 'forced_down' should "
                         "be specified.")  # fmt: skip
    if "disabled_reason" in data and data.get("status") != "disabled":
        raise BadRequest("Specifying 'disabled_reason' with status 'enabled' is invalid.")
    values: dict[str, Any] = {}
    if "status" in data:
        values["disabled"] = data["status"] == "disabled"
        values["disabled_reason"] = data.get("disabled_reason") if values["disabled"] else None
    if "forced_down" in data:
        values["forced_down"] = data["forced_down"]
    entry = _write(call, _find(call, uuid=service_id), **values)
    return json_response({"service": view(call, entry)})


@max_version("2.52")
def legacy_update(call: Call, action: str) -> Response:
    call.enforce("os_compute_api:os-services:update")
    data = call.body(schemas.SERVICE_HOST_BINARY)
    entry = _find(call, host=data["host"], binary=data["binary"])
    body: dict[str, Any] = {"host": data["host"], "binary": data["binary"]}
    if action == "enable":
        _write(call, entry, disabled=False, disabled_reason=None)
        body["status"] = "enabled"
    elif action in ("disable", "disable-log-reason"):
        reason = data.get("disabled_reason") if action == "disable-log-reason" else None
        if action == "disable-log-reason" and not reason:
            raise BadRequest("Missing disabled reason field")
        _write(call, entry, disabled=True, disabled_reason=reason)
        body["status"] = "disabled"
        if reason:
            body["disabled_reason"] = reason
    elif action == "force-down" and call.at_least("2.11") and "forced_down" in data:
        _write(call, entry, forced_down=data["forced_down"])
        body["forced_down"] = data["forced_down"]
    else:
        raise NotFound("Unknown action")
    return json_response({"service": body})


def delete(call: Call, service_id: str) -> Response:
    call.enforce("os_compute_api:os-services:delete")
    key = {"uuid": service_id} if call.at_least("2.53") else {"id": _int(service_id)}
    entry = _find(call, **key)
    store.delete_service(call.svc, entry)
    return Response(status=204)


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise BadRequest(f"Invalid uuid {value}") from None


def routes() -> list[Rule]:
    return [
        *route("/os-services", ["GET"], index),
        *route("/os-services/<service_id>", ["PUT"], update, legacy_update_by_id),
        *route("/os-services/<service_id>", ["DELETE"], delete),
    ]


@max_version("2.52")
def legacy_update_by_id(call: Call, service_id: str) -> Response:
    return legacy_update(call, service_id)
