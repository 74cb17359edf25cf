"""Tags and the deactivate/reactivate actions of /v2/images/{id}."""

from __future__ import annotations

from typing import Any

from werkzeug.wrappers import Response

from saphira import exception
from saphira.api.image.app import Call, route
from saphira.db.image.models import ImageTag
from saphira.image.records import utcnow


def _add_tag(call: Call, image_id: str, tag: str) -> Response:
    if len(tag) > 255:
        raise exception.BadRequest("Tags are at most 255 characters long.")
    with call.records.session() as session:
        image = call.records.visible(session, call.ctx, image_id)
        call.authorize("modify_image", image)
        if tag not in {t.value for t in image.tags}:
            quota = call.settings.tag_quota
            if 0 <= quota <= len(image.tags):
                raise exception.PayloadTooLarge(f"Maximum tags per image: {quota}.")
            image.tags.append(ImageTag(value=tag))
            image.updated_at = utcnow()
    return Response(status=204)


def _delete_tag(call: Call, image_id: str, tag: str) -> Response:
    with call.records.session() as session:
        image = call.records.visible(session, call.ctx, image_id)
        call.authorize("modify_image", image)
        found = [t for t in image.tags if t.value == tag]
        if not found:
            raise exception.NotFound(f"Tag {tag} not found.")
        image.tags.remove(found[0])
        image.updated_at = utcnow()
    return Response(status=204)


def _transition(call: Call, image_id: str, action: str, source: str, target: str) -> Response:
    with call.records.session() as session:
        image = call.records.visible(session, call.ctx, image_id)
        call.authorize(action, image)
        if image.status == target:
            return Response(status=204)
        if image.status != source:
            raise exception.Forbidden(f"Not allowed to {action} image in status '{image.status}'")
        image.status, image.updated_at = target, utcnow()
    return Response(status=204)


def _deactivate(call: Call, image_id: str) -> Response:
    return _transition(call, image_id, "deactivate", "active", "deactivated")


def _reactivate(call: Call, image_id: str) -> Response:
    return _transition(call, image_id, "reactivate", "deactivated", "active")


def routes() -> list[Any]:
    return [
        route("/v2/images/<image_id>/tags/<path:tag>", ["PUT"], _add_tag),
        route("/v2/images/<image_id>/tags/<path:tag>", ["DELETE"], _delete_tag),
        route("/v2/images/<image_id>/actions/deactivate", ["POST"], _deactivate),
        route("/v2/images/<image_id>/actions/reactivate", ["POST"], _reactivate),
    ]
