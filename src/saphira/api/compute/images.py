"""/images: the image service's images in Nova's shapes, up to 2.35 (404 from
2.36 on, as Nova), asked with the caller's token (``image_proxy``).

Listing filters are Nova's, translated for Glance as Nova's glance client does:
``server`` (an id or a server URL) is the ``instance_uuid`` property, ``type``
the ``image_type`` one, ``property-X`` the property X; ``changes-since`` keeps
the images updated at or after that time.
"""

from __future__ import annotations

import datetime as dt

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import image_proxy as proxy
from saphira.api.compute.app import Call, Handler, max_version, route
from saphira.api.compute.common import paging, parse_time
from saphira.api.wsgi import json_response
from saphira.clients.image_records import ImageRecord, Keep
from saphira.exception import Forbidden, NotFound

FILTERS = {"name": "name", "status": "status", "server": "instance_uuid", "type": "image_type",
           "minRam": "min_ram", "minDisk": "min_disk"}  # fmt: skip
PROPERTY = "property-"


def glance_filters(call: Call) -> list[tuple[str, str]]:
    """The query's filters as the image service reads them."""
    found = []
    for key, value in call.request.args.items(multi=True):
        if key == "server":
            found.append((FILTERS[key], value.rsplit("/", 1)[-1]))
        elif key == "status":
            found.append((FILTERS[key], value.lower()))
        elif key in FILTERS:
            found.append((FILTERS[key], value))
        elif key.startswith(PROPERTY) and len(key) > len(PROPERTY):
            found.append((key[len(PROPERTY) :], value))
    return found


def changed_since(call: Call) -> Keep:
    text = call.request.args.get("changes-since")
    if text is None:
        return lambda image: True
    since = parse_time(text, "changes-since").replace(tzinfo=dt.UTC)
    return lambda image: image.updated_at >= since


def _listing(call: Call) -> tuple[list[ImageRecord], int]:
    limit, marker = paging(call)
    keep = changed_since(call)
    filters = glance_filters(call)
    if limit == 0:
        return [], limit
    return proxy.records(call).find(filters, limit, marker, keep), limit


def _lister(collection: str, detailed: bool) -> Handler:
    @max_version(proxy.MAX_PROXY)
    def index(call: Call) -> Response:
        images, limit = _listing(call)
        view = proxy.detail_view if detailed else proxy.summary_view
        body = {"images": [view(call, image) for image in images]}
        if images and len(images) == limit:
            body["images_links"] = call.next_link(collection, images[-1].id)
        return json_response(body)

    return index


@max_version(proxy.MAX_PROXY)
def show(call: Call, image_id: str) -> Response:
    return json_response({"image": proxy.detail_view(call, proxy.lookup(call, image_id))})


@max_version(proxy.MAX_PROXY)
def delete(call: Call, image_id: str) -> Response:
    try:
        proxy.records(call).delete(image_id)
    except NotFound:
        raise NotFound("Image not found.") from None
    except Forbidden:
        raise Forbidden("You are not allowed to delete the image.") from None
    return Response(status=204)


@max_version(proxy.MAX_PROXY)
def delete_blank(call: Call) -> Response:
    """DELETE /images/ (an empty id): Nova's 404, not this path's 405 for its GET."""
    raise NotFound("Image not found.")


def routes() -> list[Rule]:
    return [
        *route("/images/", ["DELETE"], delete_blank),
        *route("/images", ["GET"], _lister("images", detailed=False)),
        *route("/images/detail", ["GET"], _lister("images/detail", detailed=True)),
        *route("/images/<image_id>", ["GET"], show),
        *route("/images/<image_id>", ["DELETE"], delete),
    ]
