"""The image service as the compute API's image proxy reaches it (up to 2.35,
image metadata up to 2.38; 404 after, as Nova) and the image as Nova shows it.

Nova's image API enforces no policy of its own: it asks the image service with
the caller's token, so Glance's answer (a 404 for what the caller may not see,
a 403 for what it may not change) is the answer, in Nova's words.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from saphira.api.compute.app import Call
from saphira.api.compute.common import parse_bool
from saphira.clients.endpoints import image_url
from saphira.clients.image_records import ImageRecord, ImageRecords
from saphira.exception import BadRequest, Forbidden, NotFound

MAX_PROXY = "2.35"  # Nova's MAX_PROXY_API_SUPPORT_VERSION
MAX_IMAGE_META_PROXY = "2.38"  # Nova's MAX_IMAGE_META_PROXY_API_VERSION
IMAGE_MEDIA_TYPE = "application/vnd.openstack.image"
_STATUS = {"active": "ACTIVE", "queued": "SAVING", "saving": "SAVING", "deleted": "DELETED",
           "pending_delete": "DELETED", "killed": "ERROR"}  # fmt: skip
_PROGRESS = {"queued": 25, "saving": 50, "active": 100}


def records(call: Call) -> ImageRecords:
    return ImageRecords.for_caller(image_url(call.state.conf), call.context.auth_token or "")


@contextmanager
def image_refusals(image_id: str) -> Iterator[None]:
    """The image service's 404 and 403 as Nova words them for an image."""
    try:
        yield
    except NotFound:
        raise NotFound("Image not found.") from None
    except Forbidden:
        raise Forbidden(f"Not authorized for image {image_id}.") from None


def lookup(call: Call, image_id: str) -> ImageRecord:
    with image_refusals(image_id):
        return records(call).show(image_id)


def links(call: Call, image_id: str) -> list[dict[str, str]]:
    alternate = {"rel": "alternate", "type": IMAGE_MEDIA_TYPE,
                 "href": f"{image_url(call.state.conf)}/images/{image_id}"}  # fmt: skip
    return [*call.links("images", image_id), alternate]


def summary_view(call: Call, image: ImageRecord) -> dict[str, Any]:
    return {"id": image.id, "name": image.name, "links": links(call, image.id)}


def detail_view(call: Call, image: ImageRecord) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": image.id,
        "name": image.name,
        "minRam": image.min_ram,
        "minDisk": image.min_disk,
        "metadata": image.properties,
        "created": image.created_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "updated": image.updated_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "status": _STATUS.get(image.status, "UNKNOWN"),
        "progress": _PROGRESS.get(image.status, 0),
        "OS-EXT-IMG-SIZE:size": image.size,
        "links": links(call, image.id),
    }
    server = image.properties.get("instance_uuid")
    if server is not None:
        view["server"] = {"id": server, "links": call.links("servers", server)[:2]}
    auto = image.properties.get("auto_disk_config")
    if auto is not None:
        try:
            view["OS-DCF:diskConfig"] = "AUTO" if parse_bool(auto, "auto_disk_config") else "MANUAL"
        except BadRequest:
            view["OS-DCF:diskConfig"] = "MANUAL"  # Nova's bool_from_string: unknown is false
    return view
