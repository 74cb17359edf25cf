"""The agent's image client against the real image service: a qcow2 streams back
in bounded chunks with the hashes the service computed."""

from __future__ import annotations

import hashlib
import subprocess
import uuid
from pathlib import Path

import pytest
import requests

from saphira import exception
from saphira.clients.image import ImageClient
from tests.functional.engine.conftest import Api, Plane

MIB = 1024 * 1024


def _qcow2_with_data(tmp_path: Path) -> bytes:
    """A qcow2 of a few MiB of incompressible data, so the download takes several chunks."""
    raw = tmp_path / "data.raw"
    raw.write_bytes(hashlib.shake_256(b"saphira").digest(3 * MIB))
    image = tmp_path / "image.qcow2"
    subprocess.run(["qemu-img", "convert", "-f", "raw", "-O", "qcow2", str(raw), str(image)],
                   check=True)  # fmt: skip
    return image.read_bytes()


def _create(api: Api, disk_format: str) -> str:
    created = requests.post(
        f"{api.image_url}/v2/images", timeout=30,
        headers={"X-Auth-Token": api.token("admin")},
        json={"name": "streamed", "disk_format": disk_format, "container_format": "bare"},
    )  # fmt: skip
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


def _client(api: Api) -> ImageClient:
    return ImageClient(api.image_url, lambda: api.token("admin"))


def test_open_streams_an_active_image_with_its_hashes(plane: Plane, tmp_path: Path) -> None:
    api, data = plane.api, _qcow2_with_data(tmp_path)
    image_id = _create(api, "qcow2")
    uploaded = requests.put(
        f"{api.image_url}/v2/images/{image_id}/file", data=data, timeout=30,
        headers={"X-Auth-Token": api.token("admin"), "Content-Type": "application/octet-stream"},
    )  # fmt: skip
    assert uploaded.status_code == 204, uploaded.text
    with _client(api).open(image_id) as stream:
        chunks = list(stream.chunks)
    assert (stream.image_id, stream.disk_format, stream.size) == (image_id, "qcow2", len(data))
    assert stream.hash_algo == "sha512"
    assert stream.hash_value == hashlib.sha512(data).hexdigest()
    assert stream.checksum == hashlib.md5(data).hexdigest()
    assert len(chunks) >= 3 and max(len(chunk) for chunk in chunks) <= MIB
    assert b"".join(chunks) == data


def test_open_of_an_unknown_image_is_image_not_found(plane: Plane) -> None:
    missing = str(uuid.uuid4())
    with pytest.raises(exception.ImageNotFound, match=missing):
        _client(plane.api).open(missing)


def test_open_of_an_image_without_data_is_refused(plane: Plane) -> None:
    image_id = _create(plane.api, "raw")
    with pytest.raises(exception.ImageUnacceptable, match="its status is queued, not active"):
        _client(plane.api).open(image_id)
