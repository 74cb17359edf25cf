"""The image service as the compute agent sees it: image metadata for the
driver, and snapshot uploads with the agent's service token."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import requests

from saphira import exception
from saphira.virt.types import ImageData, ImageMeta


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


class ImageUploader:
    def __init__(self, base_url: str, token: Callable[[], str], timeout: float = 300) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def upload(self, image_id: str, data: ImageData) -> None:
        """Give the image the formats the snapshot really has, then stream its bytes.

        The API created the image before the driver ran, guessing the formats;
        the image service checks the bytes against them, so a guess that does
        not match the driver's output is corrected while the image is queued.
        """
        headers = {"X-Auth-Token": self.token()}
        url = f"{self.base_url}/v2/images/{image_id}"
        try:
            current = requests.get(url, headers=headers, timeout=self.timeout).json()
            patch = _format_patch(current, data)
            if patch:
                fixed = requests.patch(
                    url, json=patch, timeout=self.timeout,
                    headers={**headers,
                             "Content-Type": "application/openstack-images-v2.1-json-patch"},
                )  # fmt: skip
                _refused(image_id, "update", fixed)

            def chunks() -> Iterator[bytes]:
                yield from data.chunks

            response = requests.put(
                f"{url}/file", data=chunks(), timeout=self.timeout,
                headers={**headers, "Content-Type": "application/octet-stream"},
            )  # fmt: skip
        except requests.RequestException as error:
            raise exception.ServiceUnavailable(f"image service unreachable: {error}") from None
        _refused(image_id, "upload", response)


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
