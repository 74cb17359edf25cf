"""The image service's calls behind the Images pages, with the user's own connection.

An image row says what may be done with it here: Glance lets the owner delete
(``delete_image``: admin or the image's project) an image that is not
protected, so Delete is offered only then.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from openstack import exceptions as sdk
from openstack.image.v2.image import Image

from saphira.dashboard.cloud import Conn

CONTAINER_FORMAT = "bare"
ANSWER_TIMEOUT = 600.0  # seconds the image service may take to answer a whole upload


@dataclass(frozen=True)
class ImageRow:
    id: str
    name: str
    status: str
    disk_format: str
    container_format: str
    size: int | None
    visibility: str
    owner: str
    min_disk: int
    min_ram: int
    protected: bool
    checksum: str
    created: str
    deletable: bool

    @property
    def size_text(self) -> str:
        return size_text(self.size)


@dataclass(frozen=True)
class NewImage:
    name: str
    disk_format: str
    visibility: str
    min_disk: int
    min_ram: int


def size_text(size: int | None) -> str:
    """Bytes in words a person reads at a glance (binary units, as Horizon's filesizeformat)."""
    if size is None:
        return "—"
    value, unit = float(size), "bytes"
    for bigger in ("KiB", "MiB", "GiB", "TiB"):
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    return f"{size} bytes" if unit == "bytes" else f"{value:.1f} {unit}"


def _row(image: Image, project_id: str, admin: bool) -> ImageRow:
    owner = str(image.owner_id or "")
    protected = bool(image.is_protected)
    return ImageRow(
        id=str(image.id), name=str(image.name or image.id), status=str(image.status or ""),
        disk_format=str(image.disk_format or ""),
        container_format=str(image.container_format or ""),
        size=image.size, visibility=str(image.visibility or ""), owner=owner,
        min_disk=int(image.min_disk or 0), min_ram=int(image.min_ram or 0), protected=protected,
        checksum=str(image.checksum or ""), created=str(image.created_at or ""),
        deletable=not protected and (admin or owner == project_id),
    )  # fmt: skip


class Readable(Protocol):
    """What an upload reads from: blocks, and its whole length (the Content-Length)."""

    def read(self, size: int = -1) -> bytes: ...

    def __len__(self) -> int: ...


def _v2(found: object) -> Image:
    if not isinstance(found, Image):
        raise TypeError(f"not an image v2 answer: {type(found).__name__}")
    return found


def images(conn: Conn, project_id: str, admin: bool) -> list[ImageRow]:
    rows = (_row(_v2(i), project_id, admin) for i in conn.image.images())
    return sorted(rows, key=lambda r: (r.name.lower(), r.id))


def image(conn: Conn, image_id: str, project_id: str, admin: bool) -> ImageRow:
    return _row(_v2(conn.image.get_image(image_id)), project_id, admin)


def create(conn: Conn, new: NewImage) -> str:
    """The image's record, queued (its data follows with ``upload``)."""
    made = Image.new(
        name=new.name, disk_format=new.disk_format, container_format=CONTAINER_FORMAT,
        visibility=new.visibility, min_disk=new.min_disk, min_ram=new.min_ram,
    ).create(conn.image)  # fmt: skip
    return str(made.id)


def upload(conn: Conn, image_id: str, data: Readable, size: int) -> None:
    """PUT /v2/images/<id>/file, streamed from ``data`` (read in the HTTP client's blocks).

    The image service answers once the data is on disk and inspected, which for
    gigabytes takes longer than a page's API timeout: the wait for that answer has
    ``ANSWER_TIMEOUT`` seconds (connecting and sending keep the session's own).
    """
    headers = {"Content-Type": "application/octet-stream", "X-OpenStack-Image-Size": str(size)}
    connect = conn.session.timeout or ANSWER_TIMEOUT
    answer = conn.image.put(f"/images/{image_id}/file", data=data, headers=headers,
                            timeout=(connect, ANSWER_TIMEOUT))  # fmt: skip
    sdk.raise_from_response(answer)


def status(conn: Conn, image_id: str) -> str:
    return str(conn.image.get_image(image_id).status or "")


def delete(conn: Conn, image_id: str) -> None:
    conn.image.delete_image(image_id, ignore_missing=False)


def forget_failed(conn: Conn, image_id: str) -> None:
    """Delete an image whose upload failed (as openstacksdk's own upload does)."""
    conn.image.delete_image(image_id, ignore_missing=True)
