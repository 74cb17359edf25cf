"""/v2/images/{id}/members: sharing an image with other projects.

The owner adds and removes members; a member accepts or rejects, and sees
only its own membership, as in Glance.
"""

from __future__ import annotations

from typing import Any

from werkzeug.wrappers import Response

from saphira import exception
from saphira.api.image.app import Call, route
from saphira.api.image.views import member_view
from saphira.api.wsgi import json_response
from saphira.db.image.models import Image, ImageMember
from saphira.image.records import member_of, utcnow

STATUSES = ("pending", "accepted", "rejected")


def _shared_image(call: Call, image_id: str, session: Any) -> Image:
    image = call.records.visible(session, call.ctx, image_id)
    if image.visibility != "shared":
        raise exception.Forbidden(
            f"Only shared images have members. Image {image_id} is {image.visibility}."
        )
    return image


def _list(call: Call, image_id: str) -> Response:
    with call.records.session() as session:
        image = _shared_image(call, image_id, session)
        call.authorize("get_members", image)
        members = session.query(ImageMember).filter_by(image_id=image.id).all()
        if not (call.ctx.is_admin or image.owner == call.ctx.project_id):
            members = [m for m in members if m.member == call.ctx.project_id]
        views = [member_view(m) for m in members]
    return json_response({"members": views, "schema": "/v2/schemas/members"})


def _create(call: Call, image_id: str) -> Response:
    body = call.body()
    member_id = body.get("member") if isinstance(body, dict) else None
    if not isinstance(member_id, str) or not member_id or len(member_id) > 255:
        raise exception.BadRequest("Member to be added not specified")
    with call.records.session() as session:
        image = _shared_image(call, image_id, session)
        call.authorize("add_member", image)
        if member_of(session, image.id, member_id) is not None:
            raise exception.Conflict(
                f"The target member {member_id} is already associated with image {image_id}."
            )
        quota = call.settings.member_quota
        count = session.query(ImageMember).filter_by(image_id=image.id).count()
        if 0 <= quota <= count:
            raise exception.PayloadTooLarge(f"Maximum image members: {quota}.")
        now = utcnow()
        member = ImageMember(
            image_id=image.id, member=member_id, status="pending", created_at=now, updated_at=now
        )
        session.add(member)
        session.flush()
        return json_response(member_view(member))


def _find(call: Call, image_id: str, member_id: str, session: Any) -> tuple[Image, ImageMember]:
    image = _shared_image(call, image_id, session)
    member = member_of(session, image.id, member_id)
    is_owner = call.ctx.is_admin or image.owner == call.ctx.project_id
    if member is None or not (is_owner or member_id == call.ctx.project_id):
        raise exception.NotFound(f"{member_id} is not a member of image {image_id}")
    return image, member


def _show(call: Call, image_id: str, member_id: str) -> Response:
    with call.records.session() as session:
        image, member = _find(call, image_id, member_id, session)
        call.authorize("get_member", image, member_id)
        return json_response(member_view(member))


def _update(call: Call, image_id: str, member_id: str) -> Response:
    body = call.body()
    status = body.get("status") if isinstance(body, dict) else None
    if status not in STATUSES:
        raise exception.BadRequest(f"Status must be one of {', '.join(STATUSES)}.")
    with call.records.session() as session:
        image, member = _find(call, image_id, member_id, session)
        call.authorize("modify_member", image, member_id)
        member.status, member.updated_at = status, utcnow()
        session.flush()
        return json_response(member_view(member))


def _delete(call: Call, image_id: str, member_id: str) -> Response:
    with call.records.session() as session:
        image, member = _find(call, image_id, member_id, session)
        call.authorize("delete_member", image)
        session.delete(member)
    return Response(status=204)


def routes() -> list[Any]:
    base = "/v2/images/<image_id>/members"
    return [
        route(base, ["GET"], _list),
        route(base, ["POST"], _create),
        route(f"{base}/<member_id>", ["GET"], _show),
        route(f"{base}/<member_id>", ["PUT"], _update),
        route(f"{base}/<member_id>", ["DELETE"], _delete),
    ]
