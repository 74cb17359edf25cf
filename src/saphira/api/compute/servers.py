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
from saphira.db.api import build_requests
from saphira.db.api.models import InstanceGroupMember, InstanceMapping
from saphira.db.api.models import RequestSpec as SpecRow
from saphira.db.cell import instances
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
    if found.cell is None:
        instance = found.instance
        for column, value in changes.items():
            setattr(instance, column, value)
        build_requests.delete(call.session, server_id)
        build_requests.create(call.session, instance)
    else:
        with server_lookup.cell_session(call, found) as session:
            instance = (
                instances.update(session, server_id, **changes) if changes else found.instance
            )
    found = server_lookup.Located(instance, found.cell)
    return json_response({"server": views.update_view(call, server_lookup.shown(call, found))})


def _forget(call: Call, server_id: str) -> None:
    """Drop the API-DB records that make the server count against quota."""
    for model in (InstanceMapping, SpecRow, InstanceGroupMember):
        for row in call.session.query(model).filter_by(instance_uuid=server_id):
            call.session.delete(row)


def delete(call: Call, server_id: str) -> Response:
    found = server_lookup.locate(call, server_id)
    call.enforce("os_compute_api:servers:delete", _target(found))
    instance = found.instance
    if instance.locked and not call.context.is_admin:
        transitions.check(Action.DELETE, instance.vm_state, instance.task_state,
                          launched=True, instance_uuid=server_id, locked=True)  # fmt: skip
    if found.cell is None:
        if not build_requests.delete(call.session, server_id):
            call.session.expire_all()  # the conductor placed it meanwhile: delete it there
            return delete(call, server_id)
        _forget(call, server_id)
        return Response(status=204)
    with server_lookup.cell_session(call, found) as session:
        if not instance.host:  # never reached a host (cell0 or failed build): local delete
            instances.soft_delete(session, server_id)
            _forget(call, server_id)
            return Response(status=204)
        transitions.check(Action.DELETE, instance.vm_state, instance.task_state, launched=True,
                          instance_uuid=server_id)  # fmt: skip
        move = transitions.begin(Action.DELETE, instance.vm_state, instance.task_state)
        instances.apply(session, server_id, move, method="delete")
        server_lookup.record_action(session, call, server_id, "delete")
    call.state.servers.compute.terminate_instance(call.context, instance)
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
