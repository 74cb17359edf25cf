"""GET /allocation_candidates (1.10+), shaped by the microversion."""

from __future__ import annotations

import re
from typing import Any

from werkzeug.datastructures import MultiDict
from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira import exception
from saphira.api.placement import query
from saphira.api.placement.app import Call, route
from saphira.api.wsgi import json_response
from saphira.placement import candidates, resource_classes, traits
from saphira.placement.candidates import Query, RequestGroup, Result
from saphira.placement.errors import QueryBadValue

RULE = "placement:allocation_candidates"
_KEY = re.compile(r"^(resources|required|member_of|in_tree)([A-Za-z0-9_-]*)$")
_OTHER = {"limit", "group_policy", "root_required", "same_subtree"}


def _group(groups: dict[str, RequestGroup], suffix: str) -> RequestGroup:
    return groups.setdefault(suffix, RequestGroup(suffix=suffix))


def _parse(call: Call, args: MultiDict[str, str]) -> Query:
    groups: dict[str, RequestGroup] = {}
    for key in args:
        match = _KEY.match(key)
        if match is None and key not in _OTHER:
            raise exception.BadRequest(f"Invalid query string parameters: '{key}' was unexpected")
        if match is None:
            continue
        kind, suffix = match.groups()
        if suffix and not call.at_least(25):
            raise exception.BadRequest(f"Invalid query string parameters: '{key}' was unexpected")
        group = _group(groups, suffix)
        if kind == "resources":
            group.resources = query.resources(args[key])
        elif kind == "required":
            for value in args.getlist(key):
                req, forb = query.traits(value, call.at_least(22))
                group.required |= req
                group.forbidden |= forb
        elif kind == "member_of":
            values = args.getlist(key) if call.at_least(24) else [args[key]]
            group.member_of, group.not_member_of = query.member_of(values, call.at_least(32))
        else:
            group.in_tree = query.normalize_uuid(args[key], "in_tree")
    if not any(g.resources for g in groups.values()):
        raise QueryBadValue("At least one resources parameter is required.")
    for group in groups.values():
        if not group.resources and group.suffix:
            raise QueryBadValue(f"Resources must be requested for group '{group.suffix}'.")
    result = Query(list(groups.values()))
    numbered = [g for g in groups.values() if g.suffix]
    policy = args.get("group_policy")
    if len(numbered) > 1 and policy is None:
        raise exception.BadRequest(
            'The "group_policy" parameter is required when specifying more than one '
            '"resources{N}" parameter.'
        )
    if policy not in (None, "none", "isolate"):
        raise exception.BadRequest(f"Invalid group_policy: {policy}")
    result.group_policy = policy
    if "limit" in args:
        if not args["limit"].isdigit() or int(args["limit"]) < 1:
            raise exception.BadRequest("Invalid query string parameters: limit must be >= 1")
        result.limit = int(args["limit"])
    if "root_required" in args and call.at_least(35):
        result.root_required, result.root_forbidden = query.traits(args["root_required"], True)
    return result


def _request_body(call: Call, result: Result, candidate: candidates.Candidate) -> dict[str, Any]:
    claim = {result.nodes[pid].uuid: res for pid, res in sorted(candidate.claim.items())}
    if not call.at_least(12):
        return {
            "allocations": [
                {"resource_provider": {"uuid": uuid}, "resources": res}
                for uuid, res in claim.items()
            ]
        }
    body: dict[str, Any] = {"allocations": {u: {"resources": r} for u, r in claim.items()}}
    if call.at_least(34):
        body["mappings"] = {
            suffix: [result.nodes[pid].uuid for pid in pids]
            for suffix, pids in candidate.mappings.items()
        }
    return body


def _summaries(call: Call, result: Result, wanted: set[str]) -> dict[str, Any]:
    involved = {pid for c in result.candidates for pid in c.claim}
    shown = result.nodes if call.at_least(29) else {p: result.nodes[p] for p in involved}
    out: dict[str, Any] = {}
    for pid, node in sorted(shown.items()):
        entry: dict[str, Any] = {
            "resources": candidates.summary_resources(
                result, pid, None if call.at_least(27) else wanted
            )
        }
        if call.at_least(17):
            entry["traits"] = sorted(result.traits.get(pid, set()))
        if call.at_least(29):
            entry["parent_provider_uuid"] = (
                result.nodes[node.parent_id].uuid if node.parent_id in result.nodes else None
            )
            entry["root_provider_uuid"] = result.nodes[node.root_id].uuid
        out[node.uuid] = entry
    return out


def list_candidates(call: Call) -> Response:
    call.require(10)
    call.enforce(RULE)
    parsed = _parse(call, call.request.args)
    with call.db.reader() as session:
        for group in parsed.groups:
            resource_classes.require(session, group.resources)
            traits.require(session, group.required | group.forbidden)
        result = candidates.find(session, parsed)
    wanted = candidates.requested_classes(parsed)
    return json_response(
        {
            "allocation_requests": [_request_body(call, result, c) for c in result.candidates],
            "provider_summaries": _summaries(call, result, wanted),
        }
    )


def routes() -> list[Rule]:
    return [route("/allocation_candidates", ["GET"], list_candidates)]
