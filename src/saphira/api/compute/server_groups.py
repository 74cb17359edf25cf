"""/os-server-groups: create, list, show, delete; 2.13 owners, 2.15 soft
policies, 2.64 ``policy`` + ``rules`` in place of ``policies``."""

from __future__ import annotations

from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import schemas
from saphira.api.compute.app import Call, route
from saphira.api.compute.common import MAX_LIMIT, parse_bool, query_int
from saphira.api.wsgi import json_response
from saphira.computesvc import server_groups as store
from saphira.computesvc.server_groups import InstanceGroup
from saphira.exception import BadRequest


def view(call: Call, group: InstanceGroup) -> dict[str, Any]:
    body: dict[str, Any] = {"id": group.uuid, "name": group.name or "",
                            "members": list(group.members)}  # fmt: skip
    if call.at_least("2.64"):
        body["policy"] = group.policy or ""
        body["rules"] = dict(group.rules)
    else:
        body["policies"] = [group.policy] if group.policy else []
        body["metadata"] = {}
    if call.at_least("2.13"):
        body["project_id"] = group.project_id or ""
        body["user_id"] = group.user_id or ""
    return body


def visible(call: Call, group_id: str) -> InstanceGroup | None:
    """The group if the caller may see it (another project's does not exist for a member)."""
    return store.visible(call.svc, group_id)


def _get(call: Call, group_id: str) -> InstanceGroup:
    return store.get(call.svc, group_id)


def _policy(call: Call) -> tuple[str, str, dict[str, Any]]:
    if call.at_least("2.64"):
        data = call.body(schemas.SERVER_GROUP_CREATE_264)["server_group"]
        rules = {key: int(value) for key, value in data.get("rules", {}).items()}
        if rules and data["policy"] != "anti-affinity":
            raise BadRequest(f"Only anti-affinity policy supports rules, not {data['policy']}.")
        return data["name"], data["policy"], rules
    schema = (
        schemas.SERVER_GROUP_CREATE_215 if call.at_least("2.15") else schemas.SERVER_GROUP_CREATE
    )
    data = call.body(schema)["server_group"]
    return data["name"], data["policies"][0], {}


def create(call: Call) -> Response:
    call.enforce("os_compute_api:os-server-groups:create")
    name, policy, rules = _policy(call)
    group = store.create(call.state.quota, call.svc, name, policy, rules)
    return json_response({"server_group": view(call, group)})


_PAST_ANY_LIST = 2**31 - 1  # an offset no listing reaches: any larger one means the same


def index(call: Call) -> Response:
    call.enforce("os_compute_api:os-server-groups:index")
    everyone = call.request.args.get("all_projects")
    every_project = everyone is not None and parse_bool(everyone, "all_projects")
    if every_project:
        call.enforce("os_compute_api:os-server-groups:index:all_projects")
    # Nova slices the list (common.limited): a limit over max_limit is max_limit and an
    # offset past the end is an empty page, never a number too big for the database.
    offset = min(query_int(call, "offset") or 0, _PAST_ANY_LIST)
    limit = query_int(call, "limit")
    limit = None if limit is None else min(limit, MAX_LIMIT)
    groups = store.list_groups(call.svc, every_project=every_project, offset=offset, limit=limit)
    return json_response({"server_groups": [view(call, g) for g in groups]})


def _owned(call: Call, group_id: str, rule: str) -> InstanceGroup:
    group = _get(call, group_id)
    call.enforce(rule, {"project_id": group.project_id, "user_id": group.user_id})
    return group


def show(call: Call, group_id: str) -> Response:
    group = _owned(call, group_id, "os_compute_api:os-server-groups:show")
    return json_response({"server_group": view(call, group)})


def delete(call: Call, group_id: str) -> Response:
    store.delete(call.svc, _owned(call, group_id, "os_compute_api:os-server-groups:delete"))
    return Response(status=204)


def routes() -> list[Rule]:
    return [
        *route("/os-server-groups", ["GET"], index),
        *route("/os-server-groups", ["POST"], create),
        *route("/os-server-groups/<group_id>", ["GET"], show),
        *route("/os-server-groups/<group_id>", ["DELETE"], delete),
    ]
