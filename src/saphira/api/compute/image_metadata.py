"""/images/{id}/metadata: an image's free-form properties as Nova's image
metadata proxy shows and changes them, up to 2.38 (404 from 2.39 on).

Each change reads the image, computes its new properties and writes them
with one JSON patch; Nova's metadata_items limit holds for the result.
"""

from __future__ import annotations

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import image_proxy as proxy
from saphira.api.compute import server_schemas
from saphira.api.compute.app import Call, max_version, route
from saphira.api.wsgi import json_response
from saphira.clients.image_records import ImageRecord
from saphira.computesvc import quota
from saphira.exception import BadRequest, Forbidden, NotFound

_ALL = {"type": "object", "properties": {"metadata": server_schemas.METADATA},
        "required": ["metadata"], "additionalProperties": False}  # fmt: skip
_ONE = {"type": "object", "properties": {"meta": {
    **server_schemas.METADATA, "minProperties": 1, "maxProperties": 1}},
    "required": ["meta"], "additionalProperties": False}  # fmt: skip


def _store(call: Call, image: ImageRecord, wanted: dict[str, str], *, grows: bool = True
           ) -> ImageRecord:  # fmt: skip
    """Write ``wanted`` as the image's properties, within the metadata_items limit
    (checked, as Nova does, unless the change only removes)."""
    if wanted and grows:
        try:
            quota.check_metadata(call.state.quota, call.svc, call.context.project_id or "",
                                 len(wanted))  # fmt: skip
        except quota.OverQuota:
            raise Forbidden("Image metadata limit exceeded") from None
    with proxy.image_refusals(image.id):
        return proxy.records(call).set_properties(image, wanted)


@max_version(proxy.MAX_IMAGE_META_PROXY)
def index(call: Call, image_id: str) -> Response:
    return json_response({"metadata": proxy.lookup(call, image_id).properties})


@max_version(proxy.MAX_IMAGE_META_PROXY)
def show(call: Call, image_id: str, key: str) -> Response:
    properties = proxy.lookup(call, image_id).properties
    if key not in properties:
        raise NotFound("The resource could not be found.")
    return json_response({"meta": {key: properties[key]}})


@max_version(proxy.MAX_IMAGE_META_PROXY)
def create(call: Call, image_id: str) -> Response:
    body = call.body(_ALL)
    image = proxy.lookup(call, image_id)
    stored = _store(call, image, {**image.properties, **body["metadata"]})
    return json_response({"metadata": stored.properties})


@max_version(proxy.MAX_IMAGE_META_PROXY)
def update_all(call: Call, image_id: str) -> Response:
    body = call.body(_ALL)
    image = proxy.lookup(call, image_id)
    _store(call, image, dict(body["metadata"]))
    return json_response({"metadata": body["metadata"]})


@max_version(proxy.MAX_IMAGE_META_PROXY)
def update(call: Call, image_id: str, key: str) -> Response:
    body = call.body(_ONE)
    if key not in body["meta"]:
        raise BadRequest("Request body and URI mismatch")
    image = proxy.lookup(call, image_id)
    _store(call, image, {**image.properties, key: body["meta"][key]})
    return json_response({"meta": body["meta"]})


@max_version(proxy.MAX_IMAGE_META_PROXY)
def delete(call: Call, image_id: str, key: str) -> Response:
    image = proxy.lookup(call, image_id)
    if key not in image.properties:
        raise NotFound("Invalid metadata key")
    kept = {name: value for name, value in image.properties.items() if name != key}
    _store(call, image, kept, grows=False)
    return Response(status=204)


def routes() -> list[Rule]:
    path = "/images/<image_id>/metadata"
    return [
        *route(path, ["GET"], index),
        *route(path, ["POST"], create),
        *route(path, ["PUT"], update_all),
        *route(f"{path}/<key>", ["GET"], show),
        *route(f"{path}/<key>", ["PUT"], update),
        *route(f"{path}/<key>", ["DELETE"], delete),
    ]
