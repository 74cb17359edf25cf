"""/servers/{id}/os-instance-actions (with events for admins / 2.51) and
/os-server-external-events (cast to the instance's host)."""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import server_lookup
from saphira.api.compute.app import Call, route
from saphira.api.compute.common import paging, parse_time
from saphira.api.compute.server_views import allowed, timestamp
from saphira.api.wsgi import json_response
from saphira.computesvc import action_log
from saphira.computesvc.action_log import ActionRecord, EventRecord
from saphira.exception import BadRequest, InstanceNotFound, NotFound


def _action(call: Call, row: ActionRecord) -> dict[str, Any]:
    body: dict[str, Any] = {
        "action": row.action, "instance_uuid": row.instance_uuid, "request_id": row.request_id,
        "user_id": row.user_id, "project_id": row.project_id,
        "start_time": timestamp(row.start_time), "message": row.message,
    }  # fmt: skip
    if call.at_least("2.58"):
        body["updated_at"] = timestamp(row.updated_at or row.start_time)
    return body


def _event(call: Call, row: EventRecord, admin: bool, project: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "event": row.event, "start_time": timestamp(row.start_time),
        "finish_time": timestamp(row.finish_time), "result": row.result,
    }  # fmt: skip
    if admin:
        body["traceback"] = row.traceback
    if call.at_least("2.62"):
        if admin:
            body["host"] = row.host or ""
        body["hostId"] = hashlib.sha224((project + (row.host or "")).encode()).hexdigest()
    if call.at_least("2.84"):  # for every reader, as Nova: the traceback stays the admin's
        body["details"] = row.details
    return body


def _placed(call: Call, server_id: str, rule: str) -> server_lookup.Located:
    """The server, deleted ones too from 2.21 (their actions outlive them, as in Nova)."""
    found = server_lookup.locate(call, server_id, read_deleted=call.at_least("2.21"))
    call.enforce(rule, {"project_id": found.instance.project_id,
                        "user_id": found.instance.user_id})  # fmt: skip
    if found.cell is None:
        raise InstanceNotFound(instance_id=server_id)
    return found


def index(call: Call, server_id: str) -> Response:
    found = _placed(call, server_id, "os_compute_api:os-instance-actions:list")
    rows = action_log.actions(call.svc, found, since=_moment(call, "changes-since", "2.58"),
                              before=_moment(call, "changes-before", "2.66"))  # fmt: skip
    body: dict[str, Any] = {}
    if call.at_least("2.58"):
        rows, body = _page(call, server_id, rows)
    body["instanceActions"] = [_action(call, row) for row in rows]
    return json_response(body)


def _moment(call: Call, name: str, version: str) -> dt.datetime | None:
    """2.58's changes-since and 2.66's changes-before, on the action's last update."""
    if name in call.request.args and call.at_least(version):
        return parse_time(call.request.args[name], name)
    return None


def _page(
    call: Call, server_id: str, rows: list[ActionRecord]
) -> tuple[list[ActionRecord], dict[str, Any]]:
    """2.58's limit and marker (a request id), with Nova's next link."""
    limit, marker = paging(call)
    if marker is not None:
        ids = [row.request_id for row in rows]
        if marker not in ids:
            raise BadRequest(f"Marker {marker} could not be found.")
        rows = rows[ids.index(marker) + 1 :]
    body: dict[str, Any] = {}
    if len(rows) > limit and limit > 0:
        body["links"] = call.next_link(f"servers/{server_id}/os-instance-actions",
                                       rows[limit - 1].request_id)  # fmt: skip
    return rows[:limit], body


def show(call: Call, server_id: str, request_id: str) -> Response:
    found = _placed(call, server_id, "os_compute_api:os-instance-actions:show")
    row = action_log.action(call.svc, found, request_id)
    if row is None:
        raise NotFound(f"Action for request_id {request_id} on instance {server_id} not found")
    body = _action(call, row)
    admin = allowed(call, "os_compute_api:os-instance-actions:events")
    if admin or call.at_least("2.51"):
        events = action_log.events(call.svc, found, row)
        body["events"] = [_event(call, event, admin, row.project_id) for event in events]
    return json_response({"instanceAction": body})


_EVENTS = {"network-changed", "network-vif-plugged", "network-vif-unplugged",
           "network-vif-deleted", "volume-extended", "power-update",
           "accelerator-request-bound", "volume-reimaged"}  # fmt: skip


_EVENT = {
    "type": "object",
    "required": ["name", "server_uuid"],
    "properties": {
        "name": {"type": "string", "enum": sorted(_EVENTS)},
        "server_uuid": {"type": "string"},
        "tag": {"type": "string"},
        "status": {"type": "string", "enum": ["failed", "completed", "in-progress"]},
    },
}
EXTERNAL_EVENTS_BODY = {"type": "object", "required": ["events"], "properties": {
    "events": {"type": "array", "minItems": 1, "items": _EVENT}}}  # fmt: skip


def external_events(call: Call) -> Response:
    call.enforce("os_compute_api:os-server-external-events:create")
    data = call.body(EXTERNAL_EVENTS_BODY)
    results, accepted = [], False
    for event in data["events"]:
        result = {**event, "status": event.get("status", "completed")}
        try:
            found = server_lookup.locate(call, event["server_uuid"])
        except InstanceNotFound:
            results.append({**result, "code": 404})
            continue
        host = found.instance.host
        if not host:
            results.append({**result, "code": 422})
            continue
        call.state.servers.compute.external_instance_event(call.context, host, [result])
        results.append({**result, "code": 200})
        accepted = True
    return json_response({"events": results}, status=200 if accepted else 404)


def routes() -> list[Rule]:
    base = "/servers/<server_id>/os-instance-actions"
    return [
        *route(base, ["GET"], index),
        *route(f"{base}/<request_id>", ["GET"], show),
        *route("/os-server-external-events", ["POST"], external_events),
    ]
