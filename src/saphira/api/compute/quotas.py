"""/os-quota-sets (show, defaults, detail, update, revert) and /limits."""

from __future__ import annotations

from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import schemas
from saphira.api.compute.app import Call, route
from saphira.api.compute.common import bounded
from saphira.api.wsgi import json_response
from saphira.computesvc import quota
from saphira.exception import BadRequest

_INJECTED = ("injected_files", "injected_file_content_bytes", "injected_file_path_bytes")


def shown(call: Call) -> list[str]:
    """The resources this microversion shows: 2.36 drops networking, 2.57 injected files."""
    names = [n for n in quota.RESOURCES if not (call.at_least("2.57") and n in _INJECTED)]
    if not call.at_least("2.36"):
        names += list(quota.LEGACY_NETWORK)
    return names


def _limits(call: Call, project_id: str, user_id: str | None) -> dict[str, int]:
    return quota.limits(call.state.quota, call.svc, project_id, user_id)


def _target(call: Call, rule: str, project_id: str) -> str | None:
    user_id = call.request.args.get("user_id")
    call.enforce(rule, {"project_id": project_id, "user_id": user_id or call.context.user_id})
    return user_id


def show(call: Call, tenant_id: str) -> Response:
    user_id = _target(call, "os_compute_api:os-quota-sets:show", tenant_id)
    limits = _limits(call, tenant_id, user_id)
    body = {"id": tenant_id, **{name: limits[name] for name in shown(call)}}
    return json_response({"quota_set": body})


def detail(call: Call, tenant_id: str) -> Response:
    user_id = _target(call, "os_compute_api:os-quota-sets:detail", tenant_id)
    limits = _limits(call, tenant_id, user_id)
    usage = quota.usage(call.svc, quota.Scope(tenant_id, user_id))
    body: dict[str, Any] = {"id": tenant_id}
    for name in shown(call):
        body[name] = {"limit": limits[name], "in_use": usage.get(name, 0), "reserved": 0}
    return json_response({"quota_set": body})


def defaults(call: Call, tenant_id: str) -> Response:
    call.enforce("os_compute_api:os-quota-sets:defaults", {"project_id": tenant_id})
    limits = quota.limits(call.state.quota, call.svc, None)
    return json_response({"quota_set": {"id": tenant_id, **{n: limits[n] for n in shown(call)}}})


def update(call: Call, tenant_id: str) -> Response:
    user_id = _target(call, "os_compute_api:os-quota-sets:update", tenant_id)
    data = call.body(schemas.QUOTA_UPDATE)["quota_set"]
    force = str(data.pop("force", False)).lower() in ("true", "1", "yes")
    if "networks" in data and not call.at_least("2.36"):
        raise BadRequest("The networks quota has been removed")
    allowed = set(shown(call))
    for name in data:
        if name not in allowed:
            raise BadRequest(f"Invalid input for field/attribute quota_set. Additional "
                             f"properties are not allowed ('{name}' was unexpected)")  # fmt: skip
    usage = quota.usage(call.svc, quota.Scope(tenant_id, user_id))
    project_limits = quota.limits(call.state.quota, call.svc, tenant_id, legacy=False)
    for name, value in data.items():
        limit = bounded(value, name, -1)
        if not force and limit >= 0 and name in quota.COUNTED and usage.get(name, 0) > limit:
            raise BadRequest(f"Quota limit {limit} for {name} must be greater than or equal to "
                             f"already used and reserved {usage[name]}.")  # fmt: skip
        if user_id and 0 <= project_limits.get(name, -1) < limit:
            raise BadRequest(f"Quota limit {limit} for {name} must be less than or equal to "
                             f"{project_limits[name]}.")  # fmt: skip
        quota.store_limit(call.svc, tenant_id, user_id, name, limit)
    limits = _limits(call, tenant_id, user_id)
    return json_response({"quota_set": {name: limits[name] for name in shown(call)}})


def revert(call: Call, tenant_id: str) -> Response:
    user_id = _target(call, "os_compute_api:os-quota-sets:delete", tenant_id)
    quota.revert(call.svc, tenant_id, user_id)
    return Response(status=202)


_ABSOLUTE = {
    "maxTotalInstances": "instances", "maxTotalCores": "cores", "maxTotalRAMSize": "ram",
    "maxServerMeta": "metadata_items", "maxPersonality": "injected_files",
    "maxPersonalitySize": "injected_file_content_bytes", "maxTotalKeypairs": "key_pairs",
    "maxServerGroups": "server_groups", "maxServerGroupMembers": "server_group_members",
    "maxImageMeta": "metadata_items", "maxTotalFloatingIps": "floating_ips",
    "maxSecurityGroups": "security_groups", "maxSecurityGroupRules": "security_group_rules",
}  # fmt: skip
_USED = {"totalInstancesUsed": "instances", "totalCoresUsed": "cores", "totalRAMUsed": "ram",
         "totalServerGroupsUsed": "server_groups", "totalFloatingIpsUsed": "floating_ips",
         "totalSecurityGroupsUsed": "security_groups"}  # fmt: skip
_DROPPED = [
    ("2.36", {"maxTotalFloatingIps", "maxSecurityGroups", "maxSecurityGroupRules",
              "totalFloatingIpsUsed", "totalSecurityGroupsUsed"}),
    ("2.39", {"maxImageMeta"}),
    ("2.57", {"maxPersonality", "maxPersonalitySize"}),
]  # fmt: skip


def limits(call: Call) -> Response:
    call.enforce("os_compute_api:limits")
    project_id = call.request.args.get("tenant_id") or call.context.project_id or ""
    if project_id != call.context.project_id:
        call.enforce("os_compute_api:limits:other_project", {"project_id": project_id})
    values = _limits(call, project_id, None)
    usage = quota.usage(call.svc, quota.Scope(project_id))
    absolute = {key: values[name] for key, name in _ABSOLUTE.items()}
    absolute.update({key: usage.get(name, 0) for key, name in _USED.items()})
    for version, names in _DROPPED:
        if call.at_least(version):
            absolute = {k: v for k, v in absolute.items() if k not in names}
    return json_response({"limits": {"rate": [], "absolute": absolute}})


def routes() -> list[Rule]:
    base = "/os-quota-sets/<tenant_id>"
    return [
        *route(base, ["GET"], show),
        *route(base, ["PUT"], update),
        *route(base, ["DELETE"], revert),
        *route(f"{base}/detail", ["GET"], detail),
        *route(f"{base}/defaults", ["GET"], defaults),
        *route("/limits", ["GET"], limits),
    ]
