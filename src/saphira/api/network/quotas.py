"""/v2.0/quotas: limits per project, their defaults, and usage in ``details``.

``PUT`` accepts the clients' ``force`` and ``check_limit`` flags: with
``check_limit`` a limit below what the project already uses is refused.
"""

from __future__ import annotations

from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.network.app import Call, route
from saphira.api.network.attributes import boolean, integer
from saphira.api.wsgi import json_response
from saphira.exception import BadRequest
from saphira.netsvc import errors, quotas
from saphira.netsvc.caller import target
from saphira.netsvc.settings import QUOTA_RESOURCES

FLAGS = ("force", "check_limit")


def _allowed(call: Call, rule: str, project_id: str) -> None:
    call.caller.authorize(rule, target(project_id))


def _list(call: Call) -> Response:
    if not call.caller.is_admin:  # Neutron checks this one in code, not by a rule
        raise errors.AdminRequired(reason="Only admin can view or configure quota")
    with call.reader() as session:
        found = [
            {**quotas.limits(session, call.settings, project), "project_id": project,
             "tenant_id": project}
            for project in quotas.overridden(session)
        ]  # fmt: skip
    return json_response({"quotas": found})


def _show(call: Call, project_id: str) -> Response:
    _allowed(call, "get_quota", project_id)
    with call.reader() as session:
        limits = quotas.limits(session, call.settings, project_id)
    return json_response({"quota": limits})


def _defaults(call: Call, project_id: str) -> Response:
    _allowed(call, "get_quota", project_id)
    return json_response({"quota": {r: call.settings.default_quota(r) for r in QUOTA_RESOURCES}})


def _details(call: Call, project_id: str) -> Response:
    _allowed(call, "get_quota", project_id)
    with call.reader() as session:
        limits = quotas.limits(session, call.settings, project_id)
        used = quotas.usage(session, project_id)
    body = {r: {"limit": limits[r], "used": used[r], "reserved": 0} for r in QUOTA_RESOURCES}
    return json_response({"quota": body})


def _values(body: Any) -> tuple[dict[str, int], bool]:
    data = body.get("quota") if isinstance(body, dict) else None
    if not isinstance(data, dict):
        raise BadRequest("Unable to find 'quota' in request body")
    unknown = sorted(k for k in data if k not in QUOTA_RESOURCES and k not in FLAGS)
    if unknown:
        raise BadRequest(f"Unrecognized attribute(s) '{', '.join(unknown)}'")
    check = boolean("check_limit", data["check_limit"]) if "check_limit" in data else False
    values = {k: integer(-1)(k, v) for k, v in data.items() if k in QUOTA_RESOURCES}
    return values, check


def _update(call: Call, project_id: str) -> Response:
    _allowed(call, "update_quota", project_id)
    values, check = _values(call.body())
    with call.writer() as session:
        if check:
            used = quotas.usage(session, project_id)
            over = [r for r, limit in values.items() if 0 <= limit < used[r]]
            if over:
                raise errors.InvalidInput(
                    error_message=f"Quota limit {values[over[0]]} for {over[0]} must be "
                    f"greater than or equal to already used and reserved {used[over[0]]}."
                )
        quotas.update(session, project_id, values)
        limits = quotas.limits(session, call.settings, project_id)
    return json_response({"quota": limits})


def _delete(call: Call, project_id: str) -> Response:
    _allowed(call, "delete_quota", project_id)
    with call.writer() as session:
        quotas.reset(session, project_id)
    return Response(status=204)


def routes() -> list[Rule]:
    one = "/quotas/<project_id>"
    return [
        route("/quotas", ["GET"], _list),
        route(one, ["GET"], _show),
        route(one, ["PUT"], _update),
        route(one, ["DELETE"], _delete),
        route(f"{one}/default", ["GET"], _defaults),
        route(f"{one}/details", ["GET"], _details),
        route(f"{one}/details.json", ["GET"], _details),
    ]
