"""/os-quota-class-sets: show and update the limits of a quota class.

Only the class named ``default`` matters (it sits between the configured
defaults and a project's own limits, as in Nova); other names are stored and
shown but apply to nobody. Which resources a response carries follows
Nova's microversions: the network ones until 2.50, the server group ones
from 2.50, the injected-file ones until 2.57.
"""

from __future__ import annotations

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import schemas
from saphira.api.compute.app import Call, route
from saphira.api.compute.common import bounded
from saphira.api.wsgi import json_response
from saphira.computesvc import quota
from saphira.exception import BadRequest

_INJECTED = ("injected_files", "injected_file_content_bytes", "injected_file_path_bytes")
_GROUPS = ("server_groups", "server_group_members")
_LEGACY = tuple(quota.LEGACY_NETWORK)


def shown(call: Call) -> list[str]:
    """The resources of this microversion, in Nova's order."""
    if not call.at_least("2.50"):
        names = [n for n in quota.RESOURCES if n not in _GROUPS]
        return names + list(_LEGACY)
    return [n for n in quota.RESOURCES if not (call.at_least("2.57") and n in _INJECTED)]


def _settable(call: Call) -> tuple[str, ...]:
    """What an update may name: before 2.50 also the groups and legacy network quotas."""
    if not call.at_least("2.50"):
        return (*quota.RESOURCES, *_LEGACY)
    return tuple(shown(call))


def _limits(call: Call, class_name: str) -> dict[str, int]:
    return quota.class_limits(call.state.quota, call.svc, class_name)


def show(call: Call, class_name: str) -> Response:
    call.enforce("os_compute_api:os-quota-class-sets:show", {"quota_class": class_name})
    limits = _limits(call, class_name)
    body = {"id": class_name, **{name: limits[name] for name in shown(call)}}
    return json_response({"quota_class_set": body})


def update(call: Call, class_name: str) -> Response:
    call.enforce("os_compute_api:os-quota-class-sets:update", {"quota_class": class_name})
    if not 1 <= len(class_name) <= 255:
        raise BadRequest("quota_class_name has a minimum character requirement of 1 "
                         "and a maximum of 255.")  # fmt: skip
    data = call.body(schemas.quota_class_update(_settable(call)))["quota_class_set"]
    for name, value in data.items():
        quota.store_class_limit(call.svc, class_name, name, bounded(value, name, -1))
    limits = _limits(call, class_name)
    return json_response({"quota_class_set": {name: limits[name] for name in shown(call)}})


def routes() -> list[Rule]:
    return [
        *route("/os-quota-class-sets/<class_name>", ["GET"], show),
        *route("/os-quota-class-sets/<class_name>", ["PUT"], update),
    ]
