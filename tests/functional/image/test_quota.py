"""Quotas: an upload over the storage quota fails with 413 and leaves nothing."""

from __future__ import annotations

import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.functional.cloud import Cloud, start_cloud
from tests.functional.image.helpers import ImageClient, store_files


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    where = tmp_path_factory.mktemp("quota")
    conf = Path(where) / "quota.conf"
    conf.write_text("[image_api]\nuser_storage_quota = 1MB\nimage_count_total = 3\n")
    running = start_cloud(str(where), ["--config-file", str(conf)])
    yield running
    if running.proc is not None and running.proc.poll() is None:
        assert running.stop() == 0, running.log()


def test_storage_and_count_quota(cloud: Cloud) -> None:
    client = ImageClient(cloud, "admin")
    first = client.create(name="fits", disk_format="raw")
    assert client.upload(first["id"], b"\1" * 700_000).status_code == 204
    second = client.create(name="too-big", disk_format="raw")
    response = client.upload(second["id"], b"\1" * 700_000)
    assert response.status_code == 413, response.text
    assert client.show(second["id"])["status"] == "queued"
    assert store_files(cloud) == [first["id"]]
    third = client.create(name="third", disk_format="raw")
    fourth = client("POST", "/v2/images", json={"name": "fourth"})
    assert fourth.status_code == 413
    assert client("DELETE", f"/v2/images/{third['id']}").status_code == 204


def test_crash_mid_upload_leaves_no_half_image(cloud: Cloud) -> None:
    """SIGKILL while an upload streams; the next start resets the image to queued."""
    client = ImageClient(cloud, "admin")
    image = client.create(name="crash", disk_format="raw")  # the count quota's last free place
    url = urlparse(client.base)
    with socket.create_connection((url.hostname, url.port)) as sock:
        head = (
            f"PUT /v2/images/{image['id']}/file HTTP/1.1\r\nHost: {url.netloc}\r\n"
            f"X-Auth-Token: {client.token}\r\nContent-Type: application/octet-stream\r\n"
            f"Content-Length: 300000\r\n\r\n"
        )
        sock.sendall(head.encode() + b"\1" * 100_000)
        for _ in range(100):  # the row says saving a moment before the temp file exists
            partial = any(".part-" in name for name in store_files(cloud))
            if partial and client.show(image["id"])["status"] == "saving":
                break
            time.sleep(0.05)
        assert client.show(image["id"])["status"] == "saving"
        assert any(".part-" in name for name in store_files(cloud))
        assert cloud.stop(signal.SIGKILL) != 0
    cloud.start()
    client = ImageClient(cloud, "admin")
    assert client.show(image["id"])["status"] == "queued"
    assert not any(".part-" in name for name in store_files(cloud))
