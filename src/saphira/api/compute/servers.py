"""/servers: create, list, detail, show, update, delete."""

from __future__ import annotations

from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import server_create, server_listing, server_lookup, server_schemas
from saphira.api.compute import server_views as views
from saphira.api.compute.app import Call, route
from saphira.api.compute.common import canonical_ip
from saphira.api.wsgi import json_response
from saphira.computesvc import servers
from saphira.domain import transitions
from saphira.domain.table import Action
from saphira.exception import InstanceNotFound


def _target(found: server_lookup.Located) -> dict[str, Any]:
    return {"project_id": found.instance.project_id, "user_id": found.instance.user_id}


def create(call: Call) -> Response:
    call.enforce("os_compute_api:servers:create")
    plan = server_create.plan(call)
    made, specs = server_create.claim(call, plan)
    call.state.servers.schedule_and_build_instances(call.context, made, plan.orders(specs))
    if plan.system_metadata["return_reservation_id"] in ("true", "1", "yes"):
        return json_response({"reservation_id": made[0].reservation_id}, status=202)
    first = made[0]
    body: dict[str, Any] = {
        "id": first.uuid, "links": call.links("servers", first.uuid),
        "OS-DCF:diskConfig": "MANUAL", "security_groups": views.security_groups(first),
        "adminPass": plan.admin_pass,
    }  # fmt: skip
    response = json_response({"server": body}, status=202)
    response.headers["Location"] = call.links("servers", first.uuid)[0]["href"]
    return response


def index(call: Call) -> Response:
    return server_listing.page(call, detailed=False)


def index_detail(call: Call) -> Response:
    return server_listing.page(call, detailed=True)


def show(call: Call, server_id: str) -> Response:
    found = server_lookup.locate(call, server_id)
    call.enforce("os_compute_api:servers:show", _target(found))
    rights = views.Rights.of(call)
    shown = server_lookup.shown(call, found, with_host_status=rights.host_status)
    return json_response({"server": views.detail(call, shown, rights)})


def update(call: Call, server_id: str) -> Response:
    data = call.body(server_schemas.server_update(call.at_least))["server"]
    found = server_lookup.locate(call, server_id)
    call.enforce("os_compute_api:servers:update", _target(found))
    changes: dict[str, Any] = {}
    for key, column in (("name", "display_name"), ("description", "display_description"),
                        ("accessIPv4", "access_ip_v4"), ("accessIPv6", "access_ip_v6"),
                        ("hostname", "hostname")):  # fmt: skip
        if key in data:
            changes[column] = canonical_ip(data[key]) if key.startswith("accessIP") else data[key]
    servers.save(call.svc, found, **changes)
    return json_response({"server": views.update_view(call, server_lookup.shown(call, found))})


def delete(call: Call, server_id: str) -> Response:
    found = server_lookup.locate(call, server_id)
    call.enforce("os_compute_api:servers:delete", _target(found))
    instance = found.instance
    if instance.locked and not call.context.is_admin:
        transitions.check(Action.DELETE, instance.vm_state, instance.task_state,
                          launched=True, instance_uuid=server_id, locked=True)  # fmt: skip
    terminate = servers.delete(call.svc, found)
    if terminate is not None and terminate.host:
        call.state.servers.compute.terminate_instance(call.context, terminate)
    return Response(status=204)


def _not_found(server_id: str) -> Response:
    raise InstanceNotFound(instance_id=server_id)


def routes() -> list[Rule]:
    return [
        *route("/servers", ["GET"], index),
        *route("/servers", ["POST"], create),
        *route("/servers/detail", ["GET"], index_detail),
        *route("/servers/<server_id>", ["GET"], show),
        *route("/servers/<server_id>", ["PUT"], update),
        *route("/servers/<server_id>", ["DELETE"], delete),
    ]
