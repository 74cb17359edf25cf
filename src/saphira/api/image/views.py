"""Images and members as Glance v2 shows them (relative links, nulls kept)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from saphira.db.image.models import Image, ImageMember

BASE_ATTRIBUTES = (
    "id", "name", "status", "visibility", "protected", "os_hidden", "checksum",
    "os_hash_algo", "os_hash_value", "owner", "size", "virtual_size", "min_ram",
    "min_disk", "disk_format", "container_format", "created_at", "updated_at", "tags",
)  # fmt: skip


def timestamp(value: dt.datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def image_view(image: Image) -> dict[str, Any]:
    view: dict[str, Any] = {prop.name: prop.value for prop in image.properties}
    view.update(
        id=image.id,
        name=image.name,
        status=image.status,
        visibility=image.visibility,
        protected=image.protected,
        os_hidden=image.os_hidden,
        checksum=image.checksum,
        os_hash_algo=image.os_hash_algo,
        os_hash_value=image.os_hash_value,
        owner=image.owner,
        size=image.size,
        virtual_size=image.virtual_size,
        min_ram=image.min_ram,
        min_disk=image.min_disk,
        disk_format=image.disk_format,
        container_format=image.container_format,
        created_at=timestamp(image.created_at),
        updated_at=timestamp(image.updated_at),
        tags=sorted(tag.value for tag in image.tags),
        self=f"/v2/images/{image.id}",
        file=f"/v2/images/{image.id}/file",
        schema="/v2/schemas/image",
    )
    return view


def member_view(member: ImageMember) -> dict[str, Any]:
    return {
        "created_at": timestamp(member.created_at),
        "image_id": member.image_id,
        "member_id": member.member,
        "schema": "/v2/schemas/member",
        "status": member.status,
        "updated_at": timestamp(member.updated_at),
    }
