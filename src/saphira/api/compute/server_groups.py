"""/os-server-groups: create, list, show, delete; 2.13 owners, 2.15 soft
policies, 2.64 ``policy`` + ``rules`` in place of ``policies``."""

from __future__ import annotations

import json
import uuid
from typing import Any

import sqlalchemy as sa
from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import schemas
from saphira.api.compute.app import Call, route
from saphira.api.compute.common import parse_bool, query_int
from saphira.api.wsgi import json_response
from saphira.db.api.models import InstanceGroup, InstanceGroupPolicy
from saphira.db.api.quota import OverQuota, Scope
from saphira.exception import BadRequest, NotFound


def view(call: Call, group: InstanceGroup) -> dict[str, Any]:
    policy = group.policies[0] if group.policies else None
    body: dict[str, Any] = {
        "id": group.uuid, "name": group.name or "",
        "members": [member.instance_uuid for member in group.members],
    }  # fmt: skip
    if call.at_least("2.64"):
        body["policy"] = policy.policy if policy else ""
        body["rules"] = json.loads(policy.rules) if policy and policy.rules else {}
    else:
        body["policies"] = [policy.policy] if policy else []
        body["metadata"] = {}
    if call.at_least("2.13"):
        body["project_id"] = group.project_id or ""
        body["user_id"] = group.user_id or ""
    return body


def visible(call: Call, group_id: str) -> InstanceGroup | None:
    """The group if the caller may see it: its own project's, or any for an admin
    (Nova's query: another project's group does not exist for a member)."""
    stmt = sa.select(InstanceGroup).filter_by(uuid=group_id)
    if not call.context.is_admin:
        stmt = stmt.filter_by(project_id=call.context.project_id)
    return call.session.scalars(stmt).first()


def _get(call: Call, group_id: str) -> InstanceGroup:
    group = visible(call, group_id)
    if group is None:
        raise NotFound(f"Instance group {group_id} could not be found.")
    return group


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
    context = call.context
    call.enforce("os_compute_api:os-server-groups:create")
    name, policy, rules = _policy(call)
    scope = Scope(context.project_id or "", context.user_id)
    group = InstanceGroup(uuid=str(uuid.uuid4()), name=name, user_id=context.user_id,
                          project_id=context.project_id)  # fmt: skip
    group.policies.append(
        InstanceGroupPolicy(policy=policy, rules=json.dumps(rules) if rules else None)
    )
    try:
        with call.state.quota.reserve(call.state.api_engine, scope, {"server_groups": 1}) as s:
            s.add(group)
            s.flush()
            body = view(call, group)
    except OverQuota:
        raise OverQuota("Quota exceeded, too many server groups.") from None
    return json_response({"server_group": body})


def index(call: Call) -> Response:
    context = call.context
    call.enforce("os_compute_api:os-server-groups:index")
    stmt = sa.select(InstanceGroup).order_by(InstanceGroup.id)
    everyone = call.request.args.get("all_projects")
    if everyone is not None and parse_bool(everyone, "all_projects"):
        call.enforce("os_compute_api:os-server-groups:index:all_projects")
    else:
        stmt = stmt.where(InstanceGroup.project_id == context.project_id)
    offset = query_int(call, "offset") or 0
    limit = query_int(call, "limit")
    stmt = stmt.offset(offset)
    if limit is not None:
        stmt = stmt.limit(limit)
    return json_response({"server_groups": [view(call, g) for g in call.session.scalars(stmt)]})


def _owned(call: Call, group_id: str, rule: str) -> InstanceGroup:
    group = _get(call, group_id)
    call.enforce(rule, {"project_id": group.project_id, "user_id": group.user_id})
    return group


def show(call: Call, group_id: str) -> Response:
    group = _owned(call, group_id, "os_compute_api:os-server-groups:show")
    return json_response({"server_group": view(call, group)})


def delete(call: Call, group_id: str) -> Response:
    call.session.delete(_owned(call, group_id, "os_compute_api:os-server-groups:delete"))
    return Response(status=204)


def routes() -> list[Rule]:
    return [
        *route("/os-server-groups", ["GET"], index),
        *route("/os-server-groups", ["POST"], create),
        *route("/os-server-groups/<group_id>", ["GET"], show),
        *route("/os-server-groups/<group_id>", ["DELETE"], delete),
    ]
