"""Moving a server to another host: resize, cold migrate (``migrate``, 2.56
``host``) and live migrate (``os-migrateLive``, refused with the reason).

Resize and migrate are one conductor task (``migrate_server``): a migrate is
a resize to the same flavor that never lands on the server's own host (Nova's
``compute.api.API.resize`` with no flavor; libvirt cannot migrate to itself),
recorded as the instance action ``migrate``. A resize may stay on its host
while ``[DEFAULT] allow_resize_to_same_host`` is true.
"""

from __future__ import annotations

import secrets
from typing import Any

from werkzeug.wrappers import Response

from saphira.api.compute import hosts as api_hosts
from saphira.api.compute import server_lookup
from saphira.api.compute.app import Call
from saphira.api.wsgi import json_response
from saphira.computesvc import actions, hosts
from saphira.domain.table import Action
from saphira.exception import BadRequest, Conflict, NotFound, NoValidHost
from saphira.objects import Flavor, RequestSpec

_HOST = {"type": ["string", "null"], "minLength": 1, "maxLength": 255}


def _placed(call: Call, server_id: str, rule: str) -> server_lookup.Located:
    found = server_lookup.locate(call, server_id)
    call.enforce(f"os_compute_api:{rule}", {"project_id": found.instance.project_id,
                                           "user_id": found.instance.user_id})  # fmt: skip
    return found


def _schedule(call: Call, found: server_lookup.Located, flavor: Flavor, spec: RequestSpec) -> None:
    try:
        call.state.servers.migrate_server(call.context, found.instance, flavor, spec)
    except NoValidHost as error:  # Nova's resize and migrate answer it with a 400
        text = error.message if call.context.is_admin else error.public_message
        raise BadRequest(text) from None  # a member reads no other hosts' names


def _spec(found: server_lookup.Located, flavor: Flavor, ignore: list[str],
          force: list[str]) -> RequestSpec:  # fmt: skip
    instance = found.instance
    return RequestSpec(instance.uuid, instance.project_id, instance.user_id, flavor,
                       image_ref=instance.image_ref, ignore_hosts=ignore,
                       force_hosts=force)  # fmt: skip


def resize_elsewhere(call: Call, found: server_lookup.Located, flavor: Flavor) -> None:
    """Schedule a resize accepted by the table: off its host unless
    ``allow_resize_to_same_host``."""
    same_host = call.state.conf.allow_resize_to_same_host
    ignore = [] if same_host or not found.instance.host else [found.instance.host]
    _schedule(call, found, flavor, _spec(found, flavor, ignore, []))


def _migrate_host(call: Call, body: Any) -> str | None:
    """The 2.56 ``host``; before 2.56 the body must be null (Nova's schemas)."""
    if not call.at_least("2.56"):
        if body is not None:
            raise BadRequest("Invalid input for field/attribute migrate. Value: "
                             f"{body}. {body!r} is not of type 'null'")  # fmt: skip
        return None
    inner = {"type": ["object", "null"], "properties": {"host": _HOST},
             "additionalProperties": False}  # fmt: skip
    data = call.body({"type": "object", "properties": {"migrate": inner}})["migrate"]
    host = (data or {}).get("host")
    return str(host) if host is not None else None


def migrate(call: Call, server_id: str, _key: str, body: Any) -> Response:
    host = _migrate_host(call, body)
    found = _placed(call, server_id, "os-migrate-server:migrate")
    if host is not None:
        call.enforce("os_compute_api:os-migrate-server:migrate:host",
                     {"project_id": found.instance.project_id})  # fmt: skip
        if host == found.instance.host:
            raise BadRequest("Cannot migrate to the host where the server exists.")
        if host not in hosts.mapped_hosts(call.svc):
            raise BadRequest(f"Compute host {host} could not be found.")
    flavor = found.instance.flavor
    actions.run(call.svc, found, Action.RESIZE, record="migrate")
    source = [found.instance.host] if found.instance.host else []
    _schedule(call, found, flavor, _spec(found, flavor, source, [host] if host else []))
    return Response(status=202)


def _live_schema(call: Call) -> dict[str, Any]:
    """Nova's os-migrateLive bodies: 2.25 made block_migration also "auto" and
    dropped disk_over_commit; 2.30-2.67 accept ``force``."""
    block: dict[str, Any] = {"type": "boolean"}
    props: dict[str, Any] = {"host": _HOST, "block_migration": block}
    required = ["block_migration", "host"]
    if call.at_least("2.25"):
        props["block_migration"] = {"oneOf": [block, {"enum": ["auto"]}]}
    else:
        props["disk_over_commit"] = {"type": "boolean"}
        required.append("disk_over_commit")
    if call.at_least("2.30") and not call.at_least("2.68"):
        props["force"] = {"type": "boolean"}
    inner = {"type": "object", "properties": props, "required": required,
             "additionalProperties": False}  # fmt: skip
    return {"type": "object", "properties": {"os-migrateLive": inner}}


# Why every live migration is refused, in Nova's MigrationPreCheckError words.
LIVE_REFUSED = (
    "Migration pre-check error: live migration is not supported by this cloud: its "
    "compute hosts share no instance storage and the agents do not copy a running "
    "guest's memory and disks (libvirt block migration); cold migrate the server "
    "instead (the migrate action, 'openstack server migrate')."
)


def live_migrate(call: Call, server_id: str, _key: str, _body: Any) -> Response:
    """Checked as Nova checks it (body, policy, state, host), then refused with the
    reason (400, as Nova's API answers a failed pre-check)."""
    data = call.body(_live_schema(call))["os-migrateLive"]
    found = _placed(call, server_id, "os-migrate-server:migrate_live")
    instance = found.instance
    if instance.vm_state not in ("active", "paused") or instance.task_state is not None:
        raise Conflict(f"Cannot 'os-migrateLive' instance {server_id} while it is in "
                       f"vm_state {instance.vm_state}")  # fmt: skip
    host = data.get("host")
    if host is not None and host == instance.host:
        raise BadRequest(f"Unable to migrate instance ({server_id}) to current host "
                         f"({host}).")  # fmt: skip
    if host is not None and host not in hosts.mapped_hosts(call.svc):
        raise BadRequest(f"Compute host {host} could not be found.")
    raise BadRequest(LIVE_REFUSED)


def _evacuate_schema(call: Call) -> dict[str, Any]:
    """Nova's evacuate bodies: onSharedStorage until 2.14, force from 2.29 to 2.67."""
    props: dict[str, Any] = {"host": {"type": "string", "minLength": 1, "maxLength": 255},
                             "adminPass": {"type": "string"}}  # fmt: skip
    required: list[str] = []
    if not call.at_least("2.14"):
        props["onSharedStorage"] = {"type": ["boolean", "string"]}
        required.append("onSharedStorage")
    if call.at_least("2.29") and not call.at_least("2.68"):
        props["force"] = {"type": "boolean"}
    inner = {"type": "object", "properties": props, "required": required,
             "additionalProperties": False}  # fmt: skip
    return {"type": "object", "properties": {"evacuate": inner}}


def _source_down(call: Call, host: str | None) -> None:
    """Nova's ComputeServiceInUse (400) while the server's host still reports up."""
    for entry in api_hosts.services(call):
        service = entry.service
        mine = service.host == host and service.binary.endswith("compute")
        if mine and api_hosts.is_up(call, service):
            raise BadRequest(f"Compute service of {host} is still in use.")


def evacuate(call: Call, server_id: str, _key: str, _body: Any) -> Response:
    """Rebuild a server of a dead host elsewhere from its image (no shared storage
    here: ``onSharedStorage`` true is refused); 200, ``adminPass`` before 2.14."""
    data = call.body(_evacuate_schema(call))["evacuate"]
    if str(data.get("onSharedStorage", "false")).lower() in ("true", "1", "yes", "on"):
        raise BadRequest("Invalid input: onSharedStorage: this cloud's hosts share "
                         "no instance storage; evacuate rebuilds from the image.")  # fmt: skip
    found = _placed(call, server_id, "os-evacuate")
    instance, host = found.instance, data.get("host")
    if host is not None and host == instance.host:
        raise BadRequest("The target host can't be the same one.")
    if host is not None and host not in hosts.mapped_hosts(call.svc):
        raise NotFound(f"Compute host {host} not found.")  # Nova's words
    _source_down(call, instance.host)
    actions.run(call.svc, found, Action.REBUILD, record="evacuate")
    spec = _spec(found, found.instance.flavor, [], [host] if host else [])
    try:
        call.state.servers.evacuate_server(call.context, found.instance, spec)
    except NoValidHost as error:
        text = error.message if call.context.is_admin else error.public_message
        raise BadRequest(text) from None
    if call.at_least("2.14"):
        return Response(status=200)
    return json_response({"adminPass": data.get("adminPass") or secrets.token_urlsafe(9)})
