"""Image records as the compute API's image proxy reads and changes them.

Nova's glance client, with the caller's own token: what a caller may list,
see, delete or change is the image service's decision. An image's free-form
properties (every attribute outside Glance's base schema) are what the
compute API calls its metadata. Refusals come up as the image service gave
them (``saphira.clients.errors``: a 404 stays a NotFound, a 403 a Forbidden).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from saphira import exception
from saphira.clients.image import PATCH, ImageClient
from saphira.clients.transport import Reply, pooled

# Glance's base schema: everything else on an image is a free-form property.
BASE_ATTRIBUTES = frozenset({
    "id", "name", "status", "visibility", "protected", "os_hidden", "checksum",
    "os_hash_algo", "os_hash_value", "owner", "size", "virtual_size", "container_format",
    "disk_format", "created_at", "updated_at", "tags", "direct_url", "min_ram", "min_disk",
    "self", "file", "stores", "schema", "locations",
})  # fmt: skip
PAGE = 100  # images asked for per page while a listing follows the service's next links


@dataclass(frozen=True)
class ImageRecord:
    """One image as the proxy shows it."""

    id: str
    name: str | None
    status: str  # Glance's: queued, saving, active, killed, deleted, deactivated...
    min_ram: int
    min_disk: int
    size: int
    created_at: dt.datetime
    updated_at: dt.datetime
    properties: dict[str, str]

    @classmethod
    def of(cls, body: dict[str, Any]) -> ImageRecord:
        return cls(
            id=str(body["id"]),
            name=body.get("name"),
            status=str(body.get("status") or ""),
            min_ram=int(body.get("min_ram") or 0),
            min_disk=int(body.get("min_disk") or 0),
            size=int(body.get("size") or 0),
            created_at=parse_time(str(body["created_at"])),
            updated_at=parse_time(str(body["updated_at"])),
            properties={
                key: str(value) for key, value in body.items() if key not in BASE_ATTRIBUTES
            },
        )


def parse_time(text: str) -> dt.datetime:
    """An ISO 8601 time, naive ones taken as UTC; ValueError if it is none."""
    parsed = dt.datetime.fromisoformat(text)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def pointer(key: str) -> str:
    """The JSON pointer (RFC 6901) to a top-level attribute."""
    return "/" + key.replace("~", "~0").replace("/", "~1")


Keep = Callable[[ImageRecord], bool]


class ImageRecords:
    """The image service's records, through ``ImageClient``, as one caller."""

    def __init__(self, client: ImageClient) -> None:
        self.client = client

    @classmethod
    def for_caller(cls, base_url: str, token: str) -> ImageRecords:
        """Made per request, on the process's one pool of connections to ``base_url``."""
        url = base_url.rstrip("/")
        return cls(ImageClient(url, lambda: token, timeout=30, transport=pooled(url)))

    def find(
        self, filters: list[tuple[str, str]], limit: int, marker: str | None, keep: Keep
    ) -> list[ImageRecord]:
        """Up to ``limit`` images passing ``filters`` (Glance's) and ``keep``, after
        ``marker``, following the service's pages."""
        found: list[ImageRecord] = []
        for record in self._pages(filters, marker):
            if len(found) >= limit:
                break
            if keep(record):
                found.append(record)
        return found

    def _pages(self, filters: list[tuple[str, str]], marker: str | None) -> Iterator[ImageRecord]:
        params = [*filters, ("limit", str(PAGE))]
        if marker:
            params.append(("marker", marker))
        body = self._json(self.client.request("GET", "/v2/images", params=params))
        while True:
            yield from (ImageRecord.of(image) for image in body.get("images", []))
            following = body.get("next")
            if not following:
                return
            body = self._json(self.client.request("GET", str(following)))

    def show(self, image_id: str) -> ImageRecord:
        return ImageRecord.of(self._json(self.client.request("GET", f"/v2/images/{image_id}")))

    def delete(self, image_id: str) -> None:
        self.client.request("DELETE", f"/v2/images/{image_id}").close()

    def set_properties(self, image: ImageRecord, wanted: dict[str, str]) -> ImageRecord:
        """Make the image's free-form properties exactly ``wanted``; the image after."""
        patch: list[dict[str, str]] = [
            {"op": "remove", "path": pointer(key)} for key in image.properties if key not in wanted
        ]
        patch += [
            {"op": "replace" if key in image.properties else "add", "path": pointer(key),
             "value": value}
            for key, value in wanted.items()
            if image.properties.get(key) != value
        ]  # fmt: skip
        if not patch:
            return image
        reply = self.client.request("PATCH", f"/v2/images/{image.id}", json=patch,
                                    headers={"Content-Type": PATCH})  # fmt: skip
        return ImageRecord.of(self._json(reply))

    @staticmethod
    def _json(reply: Reply) -> dict[str, Any]:
        try:
            body = reply.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise exception.ServiceUnavailable("the image service answered without a JSON object")
        return body
