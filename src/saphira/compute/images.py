"""Image metadata as the driver sees it (the client for image bytes is
``saphira.clients.image``)."""

from __future__ import annotations

from typing import Any

from saphira.objects import BuildImage
from saphira.virt.types import ImageMeta


def image_meta(image: dict[str, Any], image_ref: str = "") -> ImageMeta:
    """Glance's image document (possibly empty) as the driver's typed ImageMeta."""
    known = {"id", "name", "disk_format", "container_format", "min_disk", "min_ram", "size"}
    props = tuple(sorted((k, str(v)) for k, v in image.items() if k not in known
                         and isinstance(v, str | int | float | bool)))  # fmt: skip
    return ImageMeta(
        id=str(image.get("id") or image_ref),
        name=str(image.get("name") or ""),
        disk_format=str(image.get("disk_format") or "qcow2"),
        container_format=str(image.get("container_format") or "bare"),
        min_disk=int(image.get("min_disk") or 0),
        min_ram=int(image.get("min_ram") or 0),
        size=int(image.get("size") or 0),
        properties=props,
    )


def build_image_meta(image: BuildImage, image_ref: str = "") -> ImageMeta:
    """A build order's image as the driver's ImageMeta (as ``image_meta`` reads Glance's)."""
    return ImageMeta(
        id=image.id or image_ref,
        name=image.name,
        disk_format=image.disk_format or "qcow2",
        container_format=image.container_format or "bare",
        min_disk=image.min_disk,
        min_ram=image.min_ram,
        size=image.size,
        properties=tuple(sorted(image.properties.items())),
    )
