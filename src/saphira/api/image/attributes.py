"""Applying client-set attributes to an image: create and JSON-patch share it.

Base attributes are columns; everything else is a free-form string property.
Read-only and reserved names are refused with 403, as Glance refuses them.
"""

from __future__ import annotations

from typing import Any

from saphira import exception
from saphira.api.image.app import Call
from saphira.api.image.schemas import READ_ONLY, RESERVED, image_schema
from saphira.api.wsgi import validate
from saphira.db.image.models import Image, ImageProperty, ImageTag

COLUMNS = (
    "name", "visibility", "protected", "os_hidden", "owner", "disk_format",
    "container_format", "min_ram", "min_disk",
)  # fmt: skip
ACTIVE_FIXED = ("disk_format", "container_format")


def check_names(names: Any) -> None:
    for name in names:
        if name in READ_ONLY:
            raise exception.Forbidden(f"Attribute '{name}' is read-only.")
        if name in RESERVED or str(name).startswith("os_glance"):
            raise exception.Forbidden(f"Attribute '{name}' is reserved.")


def state_of(image: Image) -> dict[str, Any]:
    """The writable view of an image: columns, tags and properties in one dict."""
    state: dict[str, Any] = {p.name: p.value for p in image.properties}
    state.update({name: getattr(image, name) for name in COLUMNS})
    state["tags"] = sorted(tag.value for tag in image.tags)
    return state


def _authorize(call: Call, image: Image, state: dict[str, Any]) -> None:
    ctx = call.ctx
    wanted = state.get("visibility")
    if wanted in ("public", "community") and image.visibility != wanted:
        call.authorize("publicize_image" if wanted == "public" else "communitize_image", image)
    new_owner = state.get("owner")
    if new_owner != image.owner and not ctx.is_admin and new_owner != ctx.project_id:
        raise exception.Forbidden(
            f"You are not permitted to create images owned by '{state.get('owner')}'."
        )


def _check_quotas(call: Call, state: dict[str, Any]) -> None:
    settings = call.settings
    props = [k for k in state if k not in COLUMNS and k != "tags"]
    if 0 <= settings.property_quota < len(props):
        raise exception.PayloadTooLarge(
            f"Attempted: {len(props)}, Maximum: {settings.property_quota} image properties."
        )
    if 0 <= settings.tag_quota < len(state.get("tags") or []):
        raise exception.PayloadTooLarge(f"Maximum tags per image: {settings.tag_quota}.")


def apply(call: Call, image: Image, state: dict[str, Any]) -> None:
    """Validate the complete new state and write it onto ``image``."""
    checked = {k: v for k, v in state.items() if v is not None or k in COLUMNS}
    validate(checked, image_schema(call.settings))
    _authorize(call, image, state)
    _check_quotas(call, state)
    if image.status not in ("queued", None):
        for name in ACTIVE_FIXED:
            if state.get(name) != getattr(image, name):
                raise exception.Forbidden(
                    f"Attribute {name} can be only replaced for a queued image."
                )
    for name in COLUMNS:
        setattr(image, name, state.get(name))
    image.protected = bool(image.protected)
    image.os_hidden = bool(image.os_hidden)
    image.min_ram, image.min_disk = image.min_ram or 0, image.min_disk or 0
    props = {k: v for k, v in state.items() if k not in COLUMNS and k != "tags" and v is not None}
    existing = {p.name: p for p in image.properties}
    for name, prop in existing.items():
        if name not in props:
            image.properties.remove(prop)
    for name, value in sorted(props.items()):
        if name in existing:
            existing[name].value = value
        else:
            image.properties.append(ImageProperty(name=name, value=value))
    tags = list(dict.fromkeys(state.get("tags") or []))
    old_tags = {t.value: t for t in image.tags}
    for value, tag in old_tags.items():
        if value not in tags:
            image.tags.remove(tag)
    image.tags.extend(ImageTag(value=v) for v in tags if v not in old_tags)
