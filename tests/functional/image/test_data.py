"""Acceptance: image data is streamed, checked, and never left half-written."""

from __future__ import annotations

import hashlib
import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

from tests.functional.cloud import Cloud
from tests.functional.image.helpers import ImageClient, qcow2, raw, store_files

GIB = 1024**3
MIB = 1024**2


def test_raw_declared_qcow2_is_refused(cloud: Cloud, tmp_path: Path) -> None:
    client = ImageClient(cloud, "admin")
    image = client.create(name="liar", disk_format="qcow2")
    response = client.upload(image["id"], raw(tmp_path / "raw.img").read_bytes())
    assert response.status_code == 400, response.text
    assert client.show(image["id"])["status"] == "queued"
    assert store_files(cloud) == []


def test_qcow2_with_backing_file_is_refused(cloud: Cloud, tmp_path: Path) -> None:
    client = ImageClient(cloud, "admin")
    backing = raw(tmp_path / "base.raw")
    path = qcow2(tmp_path / "overlay.qcow2", backing=backing)
    image = client.create(name="overlay", disk_format="qcow2")
    response = client.upload(image["id"], path.read_bytes())
    assert response.status_code == 400, response.text
    assert "backing file" in response.text
    assert client.show(image["id"])["status"] == "queued"
    assert store_files(cloud) == []


def test_queued_image_has_no_data(cloud: Cloud) -> None:
    client = ImageClient(cloud, "admin")
    image = client.create(name="empty", disk_format="raw")
    assert client("GET", f"/v2/images/{image['id']}/file").status_code == 204


def test_other_projects_private_image_is_invisible(cloud: Cloud) -> None:
    admin, demo = ImageClient(cloud, "admin"), ImageClient(cloud, "demo")
    image = admin.create(name="secret", disk_format="raw", visibility="private")
    assert demo("GET", f"/v2/images/{image['id']}").status_code == 404
    assert demo("GET", f"/v2/images/{image['id']}/file").status_code == 404
    assert demo("DELETE", f"/v2/images/{image['id']}").status_code == 404
    listed = demo("GET", "/v2/images").json()["images"]
    assert image["id"] not in [i["id"] for i in listed]
    assert admin.show(image["id"])["status"] == "queued"


def test_protected_image_delete_is_forbidden(cloud: Cloud) -> None:
    client = ImageClient(cloud, "admin")
    image = client.create(name="keep", disk_format="raw", protected=True)
    assert client("DELETE", f"/v2/images/{image['id']}").status_code == 403
    assert client.show(image["id"])["protected"] is True


def _wait_status(client: ImageClient, image_id: str, status: str) -> str:
    found = ""
    for _ in range(100):
        found = client.show(image_id)["status"]
        if found == status:
            break
        time.sleep(0.1)
    return found


def test_truncated_upload_is_killed(cloud: Cloud) -> None:
    client = ImageClient(cloud, "admin")
    image = client.create(name="cut", disk_format="raw")
    url = urlparse(client.base)
    with socket.create_connection((url.hostname, url.port)) as sock:
        head = (
            f"PUT /v2/images/{image['id']}/file HTTP/1.1\r\nHost: {url.netloc}\r\n"
            f"X-Auth-Token: {client.token}\r\nContent-Type: application/octet-stream\r\n"
            f"Content-Length: {64 * MIB}\r\n\r\n"
        )
        sock.sendall(head.encode() + b"\x01" * (4 * MIB))
    assert _wait_status(client, image["id"], "killed") == "killed"
    assert store_files(cloud) == []


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


class _Peak(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.done = pid, _rss(pid), threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.05):
            self.peak = max(self.peak, _rss(self.pid))


def test_two_gib_streams_in_bounded_memory(cloud: Cloud, tmp_path: Path) -> None:
    assert cloud.proc is not None
    client = ImageClient(cloud, "admin")
    source = tmp_path / "sparse.raw"
    with open(source, "wb") as handle:
        handle.truncate(2 * GIB)
        handle.seek(GIB)
        handle.write(b"in the middle")
    expected = hashlib.sha512()
    with open(source, "rb") as handle:
        while chunk := handle.read(4 * MIB):
            expected.update(chunk)
    image = client.create(name="big", disk_format="raw")
    before = _rss(cloud.proc.pid)
    watcher = _Peak(cloud.proc.pid)
    watcher.start()
    with open(source, "rb") as handle:
        response = client.upload(image["id"], handle)
    assert response.status_code == 204, response.text
    shown = client.show(image["id"])
    assert (shown["status"], shown["size"]) == ("active", 2 * GIB)
    assert shown["os_hash_value"] == expected.hexdigest()
    downloaded = hashlib.sha512()
    with client("GET", f"/v2/images/{image['id']}/file", stream=True) as got:
        assert got.status_code == 200
        for chunk in got.iter_content(4 * MIB):
            downloaded.update(chunk)
    watcher.done.set()
    watcher.join()
    assert downloaded.hexdigest() == expected.hexdigest()
    assert watcher.peak - before < 50 * MIB, (before, watcher.peak)
    ranged = client(
        "GET", f"/v2/images/{image['id']}/file", headers={"Range": f"bytes={GIB}-{GIB + 12}"}
    )
    assert (ranged.status_code, ranged.content) == (206, b"in the middle")
    assert client("DELETE", f"/v2/images/{image['id']}").status_code == 204
    assert store_files(cloud) == []
