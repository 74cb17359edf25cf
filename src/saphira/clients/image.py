"""The image service (Glance v2): image bytes for the agents, images for the compute API.

``ImageClient`` as the service user: the compute agent uploads snapshots
and the hypervisor driver downloads bases (data streamed both ways: an
image never sits in memory whole); the data types it speaks are defined
here and re-exported by ``saphira.virt.types``. ``CallerImages`` is the
compute API's view with the caller's own token (Nova's glance client), so
which images a caller may boot or create is the image service's decision.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from oslo_config import cfg

from saphira import exception
from saphira.clients.base import Locator, ServiceClient, TokenProvider
from saphira.clients.endpoints import image_url
from saphira.clients.transport import Reply, Transport, TransportError

CHUNK = 1024 * 1024
PATCH = "application/openstack-images-v2.1-json-patch"


@dataclasses.dataclass(frozen=True)
class ImageData:
    """A snapshot's bytes for the image service: what ``snapshot`` uploads."""

    disk_format: str
    container_format: str
    chunks: Iterable[bytes]


def _nothing() -> None:
    return None


@dataclasses.dataclass(frozen=True)
class ImageStream:
    """An active image's bytes on their way down, with what to check them against.

    ``hash_algo``/``hash_value`` are Glance's ``os_hash_*`` (empty when the
    image has none), ``checksum`` its md5. Close it (or use it as a context
    manager) to give the connection back when not every chunk was read.
    """

    image_id: str
    disk_format: str
    size: int
    hash_algo: str
    hash_value: str
    checksum: str
    chunks: Iterable[bytes]
    closer: Callable[[], None] = _nothing

    def close(self) -> None:
        self.closer()

    def __enter__(self) -> ImageStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class ImageClient(ServiceClient):
    service = "image service"

    def __init__(
        self,
        base_url: str | Locator,
        token: TokenProvider | None,
        timeout: float = 300,
        transport: Transport | None = None,
    ) -> None:
        super().__init__(base_url, token, timeout=timeout, transport=transport)

    def as_user(self, token: str) -> ImageClient:
        """The same service (and connection pool) with a caller's token."""
        return ImageClient(self.locator, lambda: token, self.timeout, self.transport)

    def open(self, image_id: str) -> ImageStream:
        """An active image's bytes as a stream of chunks of at most 1 MiB.

        ImageNotFound if the caller cannot see the image, ImageUnacceptable if
        it has no data to give (queued, saving, deactivated, ...).
        """
        image = _json(self._get(image_id, f"/v2/images/{image_id}"))
        status = image.get("status")
        if status != "active":
            raise exception.ImageUnacceptable(
                image_id=image_id, reason=f"its status is {status}, not active"
            )
        reply = self._get(image_id, f"/v2/images/{image_id}/file", stream=True)
        if reply.status != 200:
            reply.close()
            raise exception.ImageUnacceptable(
                image_id=image_id, reason=f"the image service sent no data ({reply.status})"
            )
        return ImageStream(
            image_id=image_id,
            disk_format=str(image.get("disk_format") or ""),
            size=int(image.get("size") or 0),
            hash_algo=str(image.get("os_hash_algo") or ""),
            hash_value=str(image.get("os_hash_value") or ""),
            checksum=str(image.get("checksum") or ""),
            chunks=_chunks(image_id, reply),
            closer=reply.close,
        )

    def _get(self, image_id: str, path: str, stream: bool = False) -> Reply:
        reply = self.request("GET", path, stream=stream, raise_refusal=False)
        if reply.status == 404:
            reply.close()
            raise exception.ImageNotFound(image_id=image_id)
        _refused(image_id, "download", reply)
        return reply

    def upload(self, image_id: str, data: ImageData) -> None:
        """Give the image the formats the snapshot really has, then stream its bytes.

        The API created the image before the driver ran, guessing the formats;
        the image service checks the bytes against them, so a guess that does
        not match the driver's output is corrected while the image is queued.
        """
        path = f"/v2/images/{image_id}"
        current = self.request("GET", path, raise_refusal=False)
        patch = _format_patch(_body(current) or {}, data)
        if patch:
            fixed = self.request("PATCH", path, json=patch, headers={"Content-Type": PATCH},
                                 raise_refusal=False)  # fmt: skip
            _refused(image_id, "update", fixed)

        def chunks() -> Iterator[bytes]:
            yield from data.chunks

        reply = self.request("PUT", f"{path}/file", data=chunks(), raise_refusal=False,
                             headers={"Content-Type": "application/octet-stream"})  # fmt: skip
        _refused(image_id, "upload", reply)

    def delete(self, image_id: str) -> None:
        """Delete an image; one already gone counts as deleted."""
        reply = self.request("DELETE", f"/v2/images/{image_id}", raise_refusal=False)
        if reply.status != 404:
            _refused(image_id, "delete", reply)


class Images(Protocol):
    """What the compute API asks of the image service, with the caller's token."""

    def get(self, token: str, image_id: str) -> dict[str, Any]: ...

    def create(self, token: str, body: dict[str, Any]) -> dict[str, Any]: ...


class CallerImages:
    """Glance v2 with the caller's token: visibility is the image service's."""

    def __init__(self, base_url: str, transport: Transport | None = None) -> None:
        self.client = ImageClient(base_url, None, timeout=30, transport=transport)

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> CallerImages:
        return cls(image_url(conf))

    def get(self, token: str, image_id: str) -> dict[str, Any]:
        client = self.client.as_user(token)
        reply = client.request("GET", f"/v2/images/{image_id}", raise_refusal=False)
        if reply.status == 404:
            raise exception.BadRequest(f"Image {image_id} could not be found.")
        if reply.status >= 400:
            raise client.refusal(reply)
        return _json(reply)

    def create(self, token: str, body: dict[str, Any]) -> dict[str, Any]:
        reply = self.client.as_user(token).request("POST", "/v2/images", json=body,
                                                   raise_refusal=False)  # fmt: skip
        if reply.status >= 400:
            raise exception.NotFound(f"Image service refused the snapshot: {reply.text[:200]}")
        return _json(reply)


def _chunks(image_id: str, reply: Reply) -> Iterator[bytes]:
    """The body in 1 MiB pieces; a connection that breaks off is the service's fault."""
    try:
        yield from reply.chunks or ()
    except TransportError as error:
        raise exception.ServiceUnavailable(
            f"download of image {image_id} broke off: {error}"
        ) from None
    finally:
        reply.close()


def _body(reply: Reply) -> dict[str, Any] | None:
    try:
        body = reply.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _json(reply: Reply) -> dict[str, Any]:
    body = _body(reply)
    if body is None:
        raise exception.ServiceUnavailable("the image service answered without a JSON object")
    return body


def _format_patch(current: dict[str, Any], data: ImageData) -> list[dict[str, str]]:
    wanted = {"disk_format": data.disk_format, "container_format": data.container_format}
    return [
        {"op": "replace" if current.get(key) else "add", "path": f"/{key}", "value": value}
        for key, value in wanted.items()
        if current.get(key) != value
    ]


def _refused(image_id: str, what: str, reply: Reply) -> None:
    if reply.status >= 400:
        reply.close()
        raise exception.SaphiraError(
            f"image {what} of {image_id} refused: {reply.status} {reply.text[:200]}"
        )
