"""The free-space floor: with [glance_store] filesystem_store_reserve set to the
store's free space less 1 MiB, uploads are refused with 413 before they fill it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.functional.cloud import Cloud, start_cloud
from tests.functional.image.helpers import ImageClient, store_files
from tests.functional.image.streams import RawUpload

MIB = 1024 * 1024
FULL = "Image storage media is full"


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    where = Path(tmp_path_factory.mktemp("reserve"))
    found = os.statvfs(where)
    reserve = found.f_bavail * found.f_frsize - MIB  # the cloud's own start-up takes more
    conf = where / "reserve.conf"
    conf.write_text(f"[glance_store]\nfilesystem_store_reserve = {reserve}\n")
    running = start_cloud(str(where), ["--config-file", str(conf)])
    yield running
    if running.proc is not None and running.proc.poll() is None:
        assert running.stop() == 0, running.log()


def test_announced_size_refused_before_the_body_is_read(cloud: Cloud) -> None:
    client = ImageClient(cloud, "admin")
    image = client.create(name="big", disk_format="raw")["id"]
    upload = RawUpload(client, image, 64 * MIB, chunked=False)
    status, body = upload.response()  # nothing of the body sent yet
    assert status == 413 and FULL in body, body
    assert upload.sent == 0
    assert client.show(image)["status"] == "queued"
    assert store_files(cloud) == []


def test_streamed_upload_refused_before_the_floor(cloud: Cloud) -> None:
    client = ImageClient(cloud, "admin")
    image = client.create(name="streamed", disk_format="raw")["id"]
    upload = RawUpload(client, image, 64 * MIB, chunked=True)
    status, body = upload.finish()
    assert status == 413 and FULL in body, body
    assert upload.sent < 64 * MIB  # refused while the client was still sending
    assert client.show(image)["status"] == "queued"
    assert store_files(cloud) == []
