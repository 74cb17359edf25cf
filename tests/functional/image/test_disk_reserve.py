"""The free-space floor: with [glance_store] filesystem_store_reserve set to the
store's free space less 1 MiB, uploads are refused with 413 before they fill it.

The store is on a tmpfs of its own: on the shared disk the other tests' writes
and deletes move the free space by more than the 1 MiB this floor leaves."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.functional.cloud import Cloud, start_cloud
from tests.functional.image.helpers import ImageClient, store_files
from tests.functional.image.streams import RawUpload

MIB = 1024 * 1024
FULL = "Image storage media is full"
STORE_SIZE = "16m"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A directory on a filesystem nothing but the image store writes to."""
    mount = Path(tmp_path_factory.mktemp("reserve-store"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={STORE_SIZE}", "tmpfs", str(mount)],
                   check=True)  # fmt: skip
    try:
        yield mount / "images"
    finally:
        subprocess.run(["umount", str(mount)], check=True)


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory, store: Path) -> Iterator[Cloud]:
    where = Path(tmp_path_factory.mktemp("reserve"))
    found = os.statvfs(store.parent)
    reserve = found.f_bavail * found.f_frsize - MIB
    conf = where / "reserve.conf"
    conf.write_text(
        f"[glance_store]\nfilesystem_store_datadir = {store}\n"
        f"filesystem_store_reserve = {reserve}\n"
    )
    running = start_cloud(str(where), ["--config-file", str(conf)])
    yield running
    if running.proc is not None and running.proc.poll() is None:
        assert running.stop() == 0, running.log()


def test_announced_size_refused_before_the_body_is_read(cloud: Cloud, store: Path) -> None:
    client = ImageClient(cloud, "admin")
    image = client.create(name="big", disk_format="raw")["id"]
    upload = RawUpload(client, image, 64 * MIB, chunked=False)
    status, body = upload.response()  # nothing of the body sent yet
    assert status == 413 and FULL in body, body
    assert upload.sent == 0
    assert client.show(image)["status"] == "queued"
    assert store_files(cloud, store) == []


def test_streamed_upload_refused_before_the_floor(cloud: Cloud, store: Path) -> None:
    client = ImageClient(cloud, "admin")
    image = client.create(name="streamed", disk_format="raw")["id"]
    upload = RawUpload(client, image, 64 * MIB, chunked=True)
    status, body = upload.finish()
    assert status == 413 and FULL in body, body
    assert upload.sent < 64 * MIB  # refused while the client was still sending
    assert client.show(image)["status"] == "queued"
    assert store_files(cloud, store) == []
