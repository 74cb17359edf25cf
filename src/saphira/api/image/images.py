"""/v2/images: create, list, show, update (JSON patch), delete."""

from __future__ import annotations

import uuid
from typing import Any

from werkzeug.wrappers import Response

from saphira import exception
from saphira.api.image import attributes, listing
from saphira.api.image.app import Call, route
from saphira.api.image.schemas import UUID_PATTERN
from saphira.api.image.views import image_view
from saphira.api.wsgi import json_response, validate
from saphira.db.image.models import Image
from saphira.image.records import utcnow

PATCH_TYPES = (
    "application/openstack-images-v2.1-json-patch",
    "application/openstack-images-v2.0-json-patch",
)
PATCH_KINDS = ("add", "remove", "replace")
_ID_ONLY = {"type": "object", "properties": {"id": {"type": "string", "pattern": UUID_PATTERN}}}


def _create(call: Call) -> Response:
    body = call.body()
    if not isinstance(body, dict):
        raise exception.BadRequest("Image create body must be a JSON object.")
    call.authorize("add_image")
    attributes.check_names(body)
    if "id" in body:  # Glance's schema checks it: it is no property to keep
        validate({"id": body["id"]}, _ID_ONLY)
    image_id = body.pop("id", None) or str(uuid.uuid4())
    state: dict[str, Any] = {name: None for name in attributes.COLUMNS}
    state.update(visibility="shared", protected=False, os_hidden=False, min_ram=0, min_disk=0)
    state["owner"] = call.ctx.project_id
    state.update(body)
    with call.records.session() as session:
        if session.get(Image, image_id) is not None:
            raise exception.Conflict(f"Image with identifier {image_id} already exists!")
        quota = call.settings.count_quota
        if quota >= 0 and state["owner"] is not None:
            count, _ = call.records.owned_stats(session, state["owner"])
            if count >= quota:
                raise exception.PayloadTooLarge(
                    f"Resource image_count_total is over limit of {quota}."
                )
        now = utcnow()
        image = Image(id=image_id, status="queued", created_at=now, updated_at=now)
        image.owner = call.ctx.project_id
        image.properties, image.tags = [], []
        attributes.apply(call, image, state)
        session.add(image)
        session.flush()
        view = image_view(image)
    return json_response(view, status=201, headers={"Location": f"/v2/images/{image_id}"})


def _show(call: Call, image_id: str) -> Response:
    with call.records.session() as session:
        image = call.records.visible(session, call.ctx, image_id)
        call.authorize("get_image", image)
        return json_response(image_view(image))


def _list(call: Call) -> Response:
    call.authorize("get_images")
    query = listing.parse(call.request.args, call.settings)
    with call.records.session() as session:
        images = call.records.list(session, call.ctx, query)
        views = [image_view(image) for image in images]
    body: dict[str, Any] = {"images": views, "first": "/v2/images", "schema": "/v2/schemas/images"}
    if views and len(views) == query.limit:
        body["next"] = listing.next_link(call.request.args, views[-1]["id"])
    return json_response(body)


def _patch_ops(call: Call) -> list[dict[str, Any]]:
    if call.request.mimetype not in PATCH_TYPES:
        raise exception.UnsupportedMediaType(
            f"Content type {call.request.mimetype or 'none'} is not supported; use "
            f"{PATCH_TYPES[0]}."
        )
    ops = call.body()
    if not isinstance(ops, list) or not all(isinstance(op, dict) for op in ops):
        raise exception.BadRequest("Request body must be a JSON array of operation objects.")
    return ops


def _op_and_path(op: dict[str, Any], dialect: str) -> tuple[Any, Any]:
    """The operation and its path in either dialect Glance reads.

    v2.1 is RFC 6902 (``{"op": "add", "path": ...}``); v2.0, which tempest's
    client still sends, names the operation as the key (``{"add": path}``).
    """
    if dialect == PATCH_TYPES[0]:
        return op.get("op"), op.get("path")
    named = [kind for kind in PATCH_KINDS if kind in op]
    if len(named) != 1:
        raise exception.BadRequest(
            'Operation objects must contain exactly one member named "add", "remove", or "replace".'
        )
    return named[0], op[named[0]]


def _apply_op(state: dict[str, Any], op: dict[str, Any], dialect: str) -> None:
    kind, path = _op_and_path(op, dialect)
    if kind not in PATCH_KINDS or not isinstance(path, str):
        raise exception.BadRequest(f"Operation {op!r} is not a valid JSON patch operation.")
    if not path.startswith("/") or "/" in path[1:]:
        raise exception.BadRequest(f"Invalid JSON pointer for this resource: '{path}'")
    name = path[1:].replace("~1", "/").replace("~0", "~")
    attributes.check_names([name])
    if kind == "remove":
        if name in attributes.COLUMNS or name == "tags":
            raise exception.Forbidden(f"Attribute '{name}' cannot be removed.")
        if name not in state:
            raise exception.Conflict(f"Property {name} does not exist.")
        del state[name]
        return
    if "value" not in op:
        raise exception.BadRequest(f"Operation {kind} on '{path}' needs a value.")
    if kind == "replace" and name not in state:
        raise exception.Conflict(f"Property {name} does not exist.")
    if kind == "add" and dialect == PATCH_TYPES[1] and name in state:
        raise exception.Conflict(f"Property {name} already present.")  # v2.0: add never replaces
    state[name] = op["value"]


def _update(call: Call, image_id: str) -> Response:
    ops = _patch_ops(call)
    with call.records.session() as session:
        image = call.records.visible(session, call.ctx, image_id)
        call.authorize("modify_image", image)
        state = attributes.state_of(image)
        for op in ops:
            _apply_op(state, op, call.request.mimetype)
        attributes.apply(call, image, state)
        image.updated_at = utcnow()
        session.flush()
        return json_response(image_view(image))


def _delete(call: Call, image_id: str) -> Response:
    with call.records.session() as session:
        image = call.records.visible(session, call.ctx, image_id)
        call.authorize("delete_image", image)
        if image.protected:
            raise exception.Forbidden(f"Image {image_id} is protected and cannot be deleted.")
        session.delete(image)
    # After the commit: a failed transaction must not leave an active image without data.
    call.backend.data.store.delete(image_id)
    call.backend.data.staging.delete(image_id)
    return Response(status=204)


def routes() -> list[Any]:
    return [
        route("/v2/images", ["POST"], _create),
        route("/v2/images", ["GET"], _list),
        route("/v2/images/<image_id>", ["GET"], _show),
        route("/v2/images/<image_id>", ["PATCH"], _update),
        route("/v2/images/<image_id>", ["DELETE"], _delete),
    ]
