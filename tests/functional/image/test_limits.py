"""Limits against floods: in-flight and staged bytes count against the storage
quota, so concurrent uploads cannot together pass it, and the staging area has
a cap for all projects. Every refusal is a 413 that leaves nothing behind."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.functional.cloud import Cloud, start_cloud
from tests.functional.image.helpers import ImageClient, store_files
from tests.functional.image.streams import RawUpload
from tests.polling import wait_for

MIB = 1024 * 1024
QUOTA = "Image exceeds the storage quota"


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    where = tmp_path_factory.mktemp("limits")
    conf = Path(where) / "limits.conf"
    conf.write_text(
        "[image_api]\nuser_storage_quota = 3MB\n[os_glance_staging_store]\ntotal_size_cap = 3MB\n"
    )
    running = start_cloud(str(where), ["--config-file", str(conf)])
    yield running
    if running.proc is not None and running.proc.poll() is None:
        assert running.stop() == 0, running.log()


def staged_files(cloud: Cloud) -> list[str]:
    staging = cloud.state_dir / "image-staging"
    return sorted(p.name for p in staging.iterdir()) if staging.exists() else []


def part_bytes(cloud: Cloud) -> int:
    """Bytes in the store's temp files (uploads in progress)."""
    store = cloud.state_dir / "images"
    return sum(p.stat().st_size for p in store.iterdir() if ".part-" in p.name)


def delete(client: ImageClient, *image_ids: str) -> None:
    for image_id in image_ids:
        assert client("DELETE", f"/v2/images/{image_id}").status_code == 204


def test_announced_uploads_together_over_quota(cloud: Cloud) -> None:
    """Two uploads of 2 MiB under a 3 MiB quota: the second is refused up front."""
    demo = ImageClient(cloud, "demo")
    first = demo.create(name="first", disk_format="raw")["id"]
    second = demo.create(name="second", disk_format="raw")["id"]
    upload = RawUpload(demo, first, 2 * MIB, chunked=False)
    assert upload.send(MIB + MIB // 2)
    wait_for("the first upload to stream", lambda: part_bytes(cloud) >= MIB)
    refused = demo.upload(second, b"\1" * 2 * MIB)
    assert refused.status_code == 413, refused.text
    assert QUOTA in refused.text
    assert demo.show(second)["status"] == "queued"
    assert upload.finish()[0] == 204
    assert demo.show(first)["status"] == "active"
    assert store_files(cloud) == [first]
    delete(demo, first, second)


def test_streamed_uploads_together_over_quota(cloud: Cloud) -> None:
    """Sizes unknown (chunked): the second is refused at the chunk that passes the
    headroom the first leaves; the first then completes; nothing stays counted."""
    demo = ImageClient(cloud, "demo")
    first = demo.create(name="first", disk_format="raw")["id"]
    second = demo.create(name="second", disk_format="raw")["id"]
    upload = RawUpload(demo, first, 2 * MIB, chunked=True)
    assert upload.send(MIB + MIB // 2)
    wait_for("the first upload to stream", lambda: part_bytes(cloud) >= MIB)
    status, body = RawUpload(demo, second, 3 * MIB, chunked=True).finish()
    assert status == 413, body
    assert QUOTA in body
    assert demo.show(second)["status"] == "queued"
    assert part_bytes(cloud) == MIB  # only the first's chunk: the second's temp file is gone
    assert upload.finish()[0] == 204
    assert demo.show(first)["status"] == "active"
    assert store_files(cloud) == [first]
    third = demo.create(name="third", disk_format="raw")["id"]
    assert demo.upload(third, b"\1" * MIB).status_code == 204  # 2 + 1 MiB: exactly the quota
    delete(demo, first, second, third)


def test_broken_off_upload_releases_its_bytes(cloud: Cloud) -> None:
    demo = ImageClient(cloud, "demo")
    broken = demo.create(name="broken", disk_format="raw")["id"]
    upload = RawUpload(demo, broken, 3 * MIB, chunked=False)
    assert upload.send(MIB)
    wait_for("the upload to stream", lambda: demo.show(broken)["status"] == "saving")
    upload.abort()
    wait_for("the upload to be killed", lambda: demo.show(broken)["status"] == "killed")
    assert store_files(cloud) == []
    whole = demo.create(name="whole", disk_format="raw")["id"]
    assert demo.upload(whole, b"\1" * 3 * MIB).status_code == 204
    delete(demo, broken, whole)


def test_staging_area_cap_and_staged_bytes_count(cloud: Cloud) -> None:
    admin, demo = ImageClient(cloud, "admin"), ImageClient(cloud, "demo")
    headers = {"Content-Type": "application/octet-stream"}
    staged = admin.create(name="staged", disk_format="raw")["id"]
    put = admin("PUT", f"/v2/images/{staged}/stage", data=b"\1" * 2 * MIB, headers=headers)
    assert put.status_code == 204, put.text
    assert admin.show(staged)["size"] == 2 * MIB
    other = demo.create(name="other", disk_format="raw")["id"]
    refused = demo("PUT", f"/v2/images/{other}/stage", data=b"\1" * 2 * MIB, headers=headers)
    assert refused.status_code == 413, refused.text
    assert "Image staging area is full" in refused.text
    assert demo.show(other)["status"] == "queued"
    assert staged_files(cloud) == [staged]
    beside = admin.create(name="beside", disk_format="raw")["id"]
    over = admin.upload(beside, b"\1" * 2 * MIB)  # 2 MiB staged + 2 MiB > 3 MiB
    assert over.status_code == 413 and QUOTA in over.text, over.text
    assert admin.show(beside)["status"] == "queued"
    body = {"method": {"name": "glance-direct"}}
    assert admin("POST", f"/v2/images/{staged}/import", json=body).status_code == 202
    assert admin.show(staged)["status"] == "active"
    assert staged_files(cloud) == [] and store_files(cloud) == [staged]
    delete(admin, staged, beside)
    delete(demo, other)


def test_cli_upload_over_quota_with_staged_data(cloud: Cloud, tmp_path: Path) -> None:
    """The real CLI: staged data counts, so an upload beside 2 MiB staged is a 413. It is
    64 MiB, refused before its body is read: the client still shows Glance's message."""
    demo = ImageClient(cloud, "demo")
    staged = demo.create(name="staged", disk_format="raw")["id"]
    put = demo("PUT", f"/v2/images/{staged}/stage", data=b"\1" * 2 * MIB,
               headers={"Content-Type": "application/octet-stream"})  # fmt: skip
    assert put.status_code == 204, put.text
    source = tmp_path / "disk.raw"
    source.write_bytes(b"\1" * 64 * MIB)
    result = cloud.openstack(
        "image", "create", "--file", str(source), "--disk-format", "raw",
        "--container-format", "bare", "cli-over-quota", cloud="demo", check=False,
    )  # fmt: skip
    assert result.returncode != 0
    assert "413" in result.stderr and QUOTA in result.stderr, result.stderr
    listed = cloud.openstack("image", "list", "-f", "json", cloud="demo")
    assert [row["ID"] for row in listed] == [staged]  # openstacksdk deletes its queued image
    assert store_files(cloud) == [] and staged_files(cloud) == [staged]
    delete(demo, staged)
