"""/servers/{id}/metadata and /servers/{id}/tags, with Nova's limits."""

from __future__ import annotations

from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import server_lookup, server_schemas
from saphira.api.compute.app import Call, min_version, route
from saphira.api.wsgi import json_response
from saphira.computesvc import quota, servers
from saphira.domain import transitions
from saphira.domain.table import Action
from saphira.exception import BadRequest, Conflict, NotFound

MAX_TAGS = 50


def _found(call: Call, server_id: str, rule: str) -> server_lookup.Located:
    found = server_lookup.locate(call, server_id)
    call.enforce(rule, {"project_id": found.instance.project_id,
                        "user_id": found.instance.user_id})  # fmt: skip
    return found


def _save(call: Call, found: server_lookup.Located, **values: Any) -> None:
    servers.save(call.svc, found, **values)


def _writable(call: Call, found: server_lookup.Located) -> None:
    instance = found.instance
    if found.cell is not None:
        transitions.check(Action.UPDATE_METADATA, instance.vm_state, instance.task_state,
                          launched=True, instance_uuid=instance.uuid, locked=instance.locked,
                          is_admin=call.context.is_admin)  # fmt: skip


METADATA_BODY = {"type": "object", "properties": {"metadata": server_schemas.METADATA},
                 "required": ["metadata"], "additionalProperties": False}  # fmt: skip
META_BODY = {"type": "object", "properties": {"meta": {
    **server_schemas.METADATA, "minProperties": 1, "maxProperties": 1}},
    "required": ["meta"], "additionalProperties": False}  # fmt: skip
TAGS_BODY = {"type": "object", "properties": {"tags": server_schemas.TAGS},
             "required": ["tags"], "additionalProperties": False}  # fmt: skip


def _meta_rule(name: str) -> str:
    return f"os_compute_api:server-metadata:{name}"


def _set_meta(call: Call, server_id: str, rule: str, *, replace: bool) -> Response:
    body = call.body(METADATA_BODY)
    found = _found(call, server_id, _meta_rule(rule))
    _writable(call, found)
    metadata = dict(body["metadata"]) if replace else {**found.instance.metadata,
                                                       **body["metadata"]}  # fmt: skip
    quota.check_metadata(call.state.quota, call.svc, found.instance.project_id, len(metadata))
    _save(call, found, metadata=metadata)
    return json_response({"metadata": found.instance.metadata})


def meta_index(call: Call, server_id: str) -> Response:
    found = _found(call, server_id, _meta_rule("index"))
    return json_response({"metadata": found.instance.metadata})


def meta_create(call: Call, server_id: str) -> Response:
    return _set_meta(call, server_id, "create", replace=False)


def meta_replace(call: Call, server_id: str) -> Response:
    return _set_meta(call, server_id, "update_all", replace=True)


def meta_show(call: Call, server_id: str, key: str) -> Response:
    found = _found(call, server_id, _meta_rule("show"))
    if key not in found.instance.metadata:
        raise NotFound("Metadata item was not found")
    return json_response({"meta": {key: found.instance.metadata[key]}})


def meta_update(call: Call, server_id: str, key: str) -> Response:
    body = call.body(META_BODY)
    if key not in body["meta"]:
        raise BadRequest("Request body and URI mismatch")
    found = _found(call, server_id, _meta_rule("update"))
    _writable(call, found)
    metadata = {**found.instance.metadata, **body["meta"]}
    quota.check_metadata(call.state.quota, call.svc, found.instance.project_id, len(metadata))
    _save(call, found, metadata=metadata)
    return json_response({"meta": body["meta"]})


def meta_delete(call: Call, server_id: str, key: str) -> Response:
    found = _found(call, server_id, _meta_rule("delete"))
    _writable(call, found)
    if key not in found.instance.metadata:
        raise NotFound("Metadata item was not found")
    _save(call, found, metadata={k: v for k, v in found.instance.metadata.items() if k != key})
    return Response(status=204)


def _tag_rule(name: str) -> str:
    return f"os_compute_api:os-server-tags:{name}"


def _tags_writable(call: Call, found: server_lookup.Located) -> None:
    if found.cell is not None and found.instance.task_state is not None:
        raise Conflict(f"Cannot 'update tags' instance {found.instance.uuid} while it is in "
                       f"task_state {found.instance.task_state}")  # fmt: skip


@min_version("2.26")
def tags_index(call: Call, server_id: str) -> Response:
    return json_response({"tags": _found(call, server_id, _tag_rule("index")).instance.tags})


@min_version("2.26")
def tags_replace(call: Call, server_id: str) -> Response:
    body = call.body(TAGS_BODY)
    found = _found(call, server_id, _tag_rule("update_all"))
    _tags_writable(call, found)
    _save(call, found, tags=sorted(set(body["tags"])))
    return json_response({"tags": found.instance.tags})


@min_version("2.26")
def tags_delete_all(call: Call, server_id: str) -> Response:
    found = _found(call, server_id, _tag_rule("delete_all"))
    _tags_writable(call, found)
    _save(call, found, tags=[])
    return Response(status=204)


@min_version("2.26")
def tag_show(call: Call, server_id: str, tag: str) -> Response:
    if tag not in _found(call, server_id, _tag_rule("show")).instance.tags:
        raise NotFound(f"Tag {tag} could not be found.")
    return Response(status=204)


@min_version("2.26")
def tag_add(call: Call, server_id: str, tag: str) -> Response:
    if not 1 <= len(tag) <= 60 or "," in tag or "/" in tag:
        raise BadRequest(f"Tag '{tag}' is invalid.")
    found = _found(call, server_id, _tag_rule("update"))
    _tags_writable(call, found)
    if tag in found.instance.tags:
        return Response(status=204)
    if len(found.instance.tags) >= MAX_TAGS:
        raise BadRequest(f"The number of tags exceeded the per-instance limit {MAX_TAGS}")
    _save(call, found, tags=sorted({*found.instance.tags, tag}))
    response = Response(status=201)
    response.headers["Location"] = f"{call.links('servers', server_id)[0]['href']}/tags/{tag}"
    return response


@min_version("2.26")
def tag_delete(call: Call, server_id: str, tag: str) -> Response:
    found = _found(call, server_id, _tag_rule("delete"))
    _tags_writable(call, found)
    if tag not in found.instance.tags:
        raise NotFound(f"Tag {tag} could not be found.")
    _save(call, found, tags=[t for t in found.instance.tags if t != tag])
    return Response(status=204)


def routes() -> list[Rule]:
    meta, tags = "/servers/<server_id>/metadata", "/servers/<server_id>/tags"
    return [
        *route(meta, ["GET"], meta_index), *route(meta, ["POST"], meta_create),
        *route(meta, ["PUT"], meta_replace), *route(f"{meta}/<key>", ["GET"], meta_show),
        *route(f"{meta}/<key>", ["PUT"], meta_update),
        *route(f"{meta}/<key>", ["DELETE"], meta_delete),
        *route(tags, ["GET"], tags_index), *route(tags, ["PUT"], tags_replace),
        *route(tags, ["DELETE"], tags_delete_all), *route(f"{tags}/<tag>", ["GET"], tag_show),
        *route(f"{tags}/<tag>", ["PUT"], tag_add), *route(f"{tags}/<tag>", ["DELETE"], tag_delete),
    ]  # fmt: skip
