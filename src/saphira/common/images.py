"""The image service as a service user sees it: image bytes in both directions.

The compute agent uploads snapshots and the hypervisor driver downloads bases
through the same client. It lives here, below ``saphira.virt``, so a driver
can build one from the configuration; the data types it speaks are defined
here for the same reason and re-exported by ``saphira.virt.types``.
Data is streamed both ways: an image never sits in memory whole.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import requests

from saphira import exception
from saphira.common import tls

CHUNK = 1024 * 1024


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


class ImageClient:
    def __init__(self, base_url: str, token: Callable[[], str], timeout: float = 300) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def open(self, image_id: str) -> ImageStream:
        """An active image's bytes as a stream of chunks of at most 1 MiB.

        ImageNotFound if the caller cannot see the image, ImageUnacceptable if
        it has no data to give (queued, saving, deactivated, ...).
        """
        headers = {"X-Auth-Token": self.token()}
        url = f"{self.base_url}/v2/images/{image_id}"
        image = _json(self._get(image_id, url, headers))
        status = image.get("status")
        if status != "active":
            raise exception.ImageUnacceptable(
                image_id=image_id, reason=f"its status is {status}, not active"
            )
        response = self._get(image_id, f"{url}/file", headers, stream=True)
        if response.status_code != 200:
            response.close()
            raise exception.ImageUnacceptable(
                image_id=image_id, reason=f"the image service sent no data ({response.status_code})"
            )
        return ImageStream(
            image_id=image_id,
            disk_format=str(image.get("disk_format") or ""),
            size=int(image.get("size") or 0),
            hash_algo=str(image.get("os_hash_algo") or ""),
            hash_value=str(image.get("os_hash_value") or ""),
            checksum=str(image.get("checksum") or ""),
            chunks=_chunks(image_id, response),
            closer=response.close,
        )

    def _get(self, image_id: str, url: str, headers: dict[str, str],
             stream: bool = False) -> requests.Response:  # fmt: skip
        try:
            response = requests.get(
                url, headers=headers, timeout=self.timeout, stream=stream, verify=tls.verify()
            )
        except requests.RequestException as error:
            raise exception.ServiceUnavailable(f"image service unreachable: {error}") from None
        if response.status_code == 404:
            response.close()
            raise exception.ImageNotFound(image_id=image_id)
        _refused(image_id, "download", response)
        return response

    def upload(self, image_id: str, data: ImageData) -> None:
        """Give the image the formats the snapshot really has, then stream its bytes.

        The API created the image before the driver ran, guessing the formats;
        the image service checks the bytes against them, so a guess that does
        not match the driver's output is corrected while the image is queued.
        """
        headers = {"X-Auth-Token": self.token()}
        url = f"{self.base_url}/v2/images/{image_id}"
        try:
            current = requests.get(
                url, headers=headers, timeout=self.timeout, verify=tls.verify()
            ).json()
            patch = _format_patch(current, data)
            if patch:
                fixed = requests.patch(
                    url, json=patch, timeout=self.timeout,
                    headers={**headers,
                             "Content-Type": "application/openstack-images-v2.1-json-patch"},
                    verify=tls.verify(),
                )  # fmt: skip
                _refused(image_id, "update", fixed)

            def chunks() -> Iterator[bytes]:
                yield from data.chunks

            response = requests.put(
                f"{url}/file", data=chunks(), timeout=self.timeout,
                headers={**headers, "Content-Type": "application/octet-stream"},
                verify=tls.verify(),
            )  # fmt: skip
        except requests.RequestException as error:
            raise exception.ServiceUnavailable(f"image service unreachable: {error}") from None
        _refused(image_id, "upload", response)


def _chunks(image_id: str, response: requests.Response) -> Iterator[bytes]:
    """The body in 1 MiB pieces; a connection that breaks off is the service's fault."""
    try:
        yield from response.iter_content(CHUNK)
    except requests.RequestException as error:
        raise exception.ServiceUnavailable(
            f"download of image {image_id} broke off: {error}"
        ) from None
    finally:
        response.close()


def _json(response: requests.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise exception.ServiceUnavailable("the image service answered without a JSON object")
    return body


def _format_patch(current: dict[str, Any], data: ImageData) -> list[dict[str, str]]:
    wanted = {"disk_format": data.disk_format, "container_format": data.container_format}
    return [
        {"op": "replace" if current.get(key) else "add", "path": f"/{key}", "value": value}
        for key, value in wanted.items()
        if current.get(key) != value
    ]


def _refused(image_id: str, what: str, response: requests.Response) -> None:
    if response.status_code >= 400:
        raise exception.SaphiraError(
            f"image {what} of {image_id} refused: {response.status_code} {response.text[:200]}"
        )
