"""POST /servers/{id}/action: check the table, CAS the state, record, cast.

Every action follows one path (``run``, which os-interface uses too): the
service layer (``saphira.computesvc.actions``) checks the transition table
(409 naming the current state, Nova's words), makes the compare-and-swap and
records the instance action; then the compute host (or the conductor, for
resize) is told.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import consoles, server_create, server_lookup, server_moves, server_schemas
from saphira.api.compute import server_security_groups as groups
from saphira.api.compute import server_views as views
from saphira.api.compute.app import Call, route
from saphira.api.compute.backend import ComputeHosts, HostCast
from saphira.api.compute.common import canonical_ip
from saphira.api.wsgi import json_response, validate
from saphira.computesvc import actions, quota
from saphira.context import RequestContext
from saphira.domain import direct_boot
from saphira.domain.table import Action
from saphira.exception import BadRequest, Conflict, NotFound
from saphira.objects import Instance

# body key -> (policy rule, table action, what the compute host is sent)
_SIMPLE: dict[str, tuple[str, Action, HostCast]] = {
    "os-start": ("servers:start", Action.START, lambda h, c, i: h.start_instance(c, i)),
    "os-stop": ("servers:stop", Action.STOP, lambda h, c, i: h.stop_instance(c, i)),
    "pause": ("os-pause-server:pause", Action.PAUSE, lambda h, c, i: h.pause_instance(c, i)),
    "unpause": ("os-pause-server:unpause", Action.UNPAUSE,
                lambda h, c, i: h.unpause_instance(c, i)),
    "suspend": ("os-suspend-server:suspend", Action.SUSPEND,
                lambda h, c, i: h.suspend_instance(c, i)),
    "resume": ("os-suspend-server:resume", Action.RESUME,
               lambda h, c, i: h.resume_instance(c, i)),
    "confirmResize": ("servers:confirm_resize", Action.CONFIRM_RESIZE,
                      lambda h, c, i: h.confirm_resize(c, i)),
    "revertResize": ("servers:revert_resize", Action.REVERT_RESIZE,
                     lambda h, c, i: h.revert_resize(c, i)),
}  # fmt: skip


def _placed(call: Call, server_id: str, rule: str) -> server_lookup.Located:
    found = server_lookup.locate(call, server_id)
    call.enforce(f"os_compute_api:{rule}", {"project_id": found.instance.project_id,
                                           "user_id": found.instance.user_id})  # fmt: skip
    return found


def run(call: Call, found: server_lookup.Located, action: Action, **changes: Any) -> None:
    """Check, compare-and-swap and record ``action``; raises the 409 Nova raises."""
    actions.run(call.svc, found, action, **changes)


def _cast(call: Call, found: server_lookup.Located, send: HostCast) -> None:
    if found.instance.host:
        send(call.state.servers.compute, call.context, found.instance)


def _simple(call: Call, server_id: str, key: str, _body: Any) -> Response:
    rule, action, send = _SIMPLE[key]
    found = _placed(call, server_id, rule)
    run(call, found, action)
    _cast(call, found, send)
    return Response(status=204 if key == "confirmResize" else 202)  # Nova's codes


def _reboot(call: Call, server_id: str, _key: str, body: Any) -> Response:
    kind = str((body or {}).get("type", "")).upper()
    if kind not in ("SOFT", "HARD"):
        raise BadRequest("Argument 'type' for reboot must be a string with value 'SOFT' or "
                         "'HARD'.")  # fmt: skip
    found = _placed(call, server_id, "servers:reboot")
    run(call, found, Action.REBOOT_HARD if kind == "HARD" else Action.REBOOT_SOFT)
    _cast(call, found, lambda h, c, i: h.reboot_instance(c, i, kind))
    return Response(status=202)


def _lock(call: Call, server_id: str, key: str, body: Any) -> Response:
    found = _placed(call, server_id, f"os-lock-server:{key}")
    instance = found.instance
    sysmeta = dict(instance.system_metadata)
    if key == "lock":
        reason = (body or {}).get("locked_reason") if call.at_least("2.73") else None
        if reason is not None:
            sysmeta["locked_reason"] = str(reason)
        who = "owner" if call.context.project_id == instance.project_id else "admin"
        values: dict[str, Any] = {"locked": True, "locked_by": who}
    else:
        if instance.locked_by == "admin" and not call.context.is_admin:
            call.enforce("os_compute_api:os-lock-server:unlock:unlock_override")
        sysmeta.pop("locked_reason", None)
        values = {"locked": False, "locked_by": None}
    actions.set_lock(call.svc, found, key, sysmeta, values)
    return Response(status=202)


def _rebuild(call: Call, server_id: str, _key: str, _body: Any) -> Response:
    data = call.body(server_schemas.rebuild(call.at_least))["rebuild"]
    found = _placed(call, server_id, "servers:rebuild")
    image = server_create.check_image(call, data["imageRef"], found.instance.flavor)
    sysmeta = direct_boot.rebuilt(found.instance.system_metadata, image)  # the new image's boot
    changes: dict[str, Any] = {
        "image_ref": data["imageRef"],
        "system_metadata": json.dumps(sysmeta),
    }
    for key, column in (("name", "display_name"), ("description", "display_description"),
                        ("accessIPv4", "access_ip_v4"), ("accessIPv6", "access_ip_v6"),
                        ("metadata", "metadata"), ("user_data", "user_data")):  # fmt: skip
        if key in data:
            changes[column] = canonical_ip(data[key]) if key.startswith("accessIP") else data[key]
    run(call, found, Action.REBUILD, **changes)
    password = data.get("adminPass") or secrets.token_urlsafe(9)
    keep = bool(data.get("preserve_ephemeral", False))

    def rebuild(hosts: ComputeHosts, context: RequestContext, instance: Instance) -> None:
        hosts.rebuild_instance(context, instance, data["imageRef"], image,
                               admin_password=password, preserve_ephemeral=keep)  # fmt: skip

    _cast(call, found, rebuild)
    body = views.rebuild_view(call, server_lookup.shown(call, found))
    body["adminPass"] = password
    return json_response({"server": body}, status=202)


def _resize(call: Call, server_id: str, _key: str, body: Any) -> Response:
    ref = (body or {}).get("flavorRef") if isinstance(body, dict) else None
    if ref is None:
        raise BadRequest("Resize requests require 'flavorRef' attribute.")
    found = _placed(call, server_id, "servers:resize")
    flavor = server_create._flavor(call, ref)
    current = found.instance.flavor
    if flavor.flavorid == current.flavorid:
        raise BadRequest("When resizing, instances must change flavor!")
    deltas = {"cores": flavor.vcpus - current.vcpus, "ram": flavor.memory_mb - current.memory_mb}
    scope = quota.Scope(found.instance.project_id, found.instance.user_id)
    quota.check(call.state.quota, call.svc, scope, deltas)
    run(call, found, Action.RESIZE)
    server_moves.resize_elsewhere(call, found, flavor)
    return Response(status=202)


_CREATE_IMAGE = {"type": "object", "properties": {
    "name": {"type": "string", "minLength": 1, "maxLength": 255},
    "metadata": server_schemas.METADATA}, "required": ["name"]}  # fmt: skip


def _create_image(call: Call, server_id: str, _key: str, body: Any) -> Response:
    validate(body, _CREATE_IMAGE)  # Nova's: a name of 1 to 255, metadata as a server's
    if not str(body.get("name", "")).strip():
        raise BadRequest("Invalid input for field/attribute name.")
    found = _placed(call, server_id, "servers:create_image")
    token = call.context.auth_token or call.request.headers.get("X-Auth-Token", "")
    meta = {k: str(v) for k, v in (body.get("metadata") or {}).items()}
    image = call.state.image_service.create(token, {
        "name": body["name"], "disk_format": "qcow2", "container_format": "bare",
        "instance_uuid": server_id, "image_type": "snapshot",
        **direct_boot.image_properties(found.instance.system_metadata), **meta,
    })  # fmt: skip
    run(call, found, Action.CREATE_IMAGE)
    _cast(call, found, lambda h, c, i: h.snapshot_instance(c, i, image["id"]))
    if call.at_least("2.45"):
        return json_response({"image_id": image["id"]}, status=202)
    _, bookmark = call.link_base()
    return Response(status=202, headers={"Location": f"{bookmark}/images/{image['id']}"})


def _console_output(call: Call, server_id: str, _key: str, body: Any) -> Response:
    found = _placed(call, server_id, "os-console-output")
    length = (body or {}).get("length")
    if length is not None:
        try:
            length = int(length)
        except (TypeError, ValueError):
            raise BadRequest("Invalid input for field/attribute length.") from None
        if length < -1:
            raise BadRequest("Invalid input for field/attribute length.")
    instance = found.instance
    if not instance.host or instance.vm_state in ("building",):
        raise Conflict(f"Instance {server_id} is not ready")
    output = call.state.servers.compute.get_console_output(call.context, instance, length)
    return json_response({"output": str(output)})


Handler = Callable[[Call, str, str, Any], Response]
_HANDLERS: dict[str, Handler] = {
    **dict.fromkeys(_SIMPLE, _simple), "reboot": _reboot, "lock": _lock, "unlock": _lock,
    "rebuild": _rebuild, "resize": _resize, "createImage": _create_image,
    "migrate": server_moves.migrate, "os-migrateLive": server_moves.live_migrate,
    "evacuate": server_moves.evacuate,
    "os-getConsoleOutput": _console_output, "os-getVNCConsole": consoles.vnc_action,
    "os-getSPICEConsole": consoles.spice_action, "os-getSerialConsole": consoles.serial_action,
    "addSecurityGroup": groups.add, "removeSecurityGroup": groups.remove,
}  # fmt: skip


def action(call: Call, server_id: str) -> Response:
    data = call.body({"type": "object", "minProperties": 1, "maxProperties": 1})
    key = next(iter(data))
    handler = _HANDLERS.get(key)
    if handler is None:
        raise NotFound("The resource could not be found.")
    return handler(call, server_id, key, data[key])


def routes() -> list[Rule]:
    return [
        *route("/servers/<server_id>/action", ["POST"], action),
    ]
