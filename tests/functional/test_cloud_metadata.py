"""The metadata API inside `saphira up`, asked as the metadata proxy asks it:
signed with the cloud's `[neutron] metadata_proxy_shared_secret`."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from saphira.api.metadata.signature import sign
from tests.functional.cloud import Cloud, start_cloud

pytestmark = pytest.mark.functional

SECRET = "functional-metadata-secret"
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDkVd0vJ2mHq0sQyG5m7y1xq8x0uE7nQm1pZ3bL8cF0a md@test"
USER_DATA = b"#cloud-config\nruncmd: [echo metadata functional]\n"


@pytest.fixture(scope="module")
def md_cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    top = tmp_path_factory.mktemp("metadata")
    conf = top / "metadata.conf"
    conf.write_text(f"[neutron]\nmetadata_proxy_shared_secret = {SECRET}\n", encoding="utf-8")
    running = start_cloud(str(top), ["--config-file", str(conf)])
    yield running
    if running.proc is not None and running.proc.poll() is None:
        assert running.stop() == 0, running.log()


@pytest.fixture(scope="module")
def server(md_cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    top = tmp_path_factory.mktemp("server")
    (top / "key.pub").write_text(KEY, encoding="utf-8")
    (top / "user-data").write_bytes(USER_DATA)
    (top / "disk.raw").write_bytes(b"\0" * 4096)
    md_cloud.openstack("flavor", "create", "--vcpus", "1", "--ram", "64", "--disk", "1", "md")
    md_cloud.openstack("keypair", "create", "--public-key", str(top / "key.pub"), "mdkey")
    md_cloud.openstack(
        "image", "create", "--disk-format", "raw", "--container-format", "bare",
        "--file", str(top / "disk.raw"), "md-image",
    )  # fmt: skip
    made: dict[str, Any] = md_cloud.openstack(
        "server", "create", "--flavor", "md", "--image", "md-image", "--no-network",
        "--key-name", "mdkey", "--user-data", str(top / "user-data"), "--wait", "md-server",
        "-f", "json",
    )  # fmt: skip
    assert made["status"] == "ACTIVE", made
    return made


def _get(cloud: Cloud, path: str, headers: dict[str, str]) -> requests.Response:
    return requests.get(cloud.url("metadata") + path, headers=headers, timeout=30)


def _signed(server: dict[str, Any], secret: str = SECRET, **changes: str) -> dict[str, str]:
    headers = {
        "X-Instance-ID": server["id"],
        "X-Tenant-ID": server["project_id"],
        "X-Instance-ID-Signature": sign(secret, server["id"]),
        "X-Forwarded-For": "10.0.0.9",
    }
    headers.update(changes)
    return headers


def test_the_signed_instance_reads_its_metadata(md_cloud: Cloud, server: dict[str, Any]) -> None:
    answer = _get(md_cloud, "/openstack/latest/meta_data.json", _signed(server))
    assert answer.status_code == 200, answer.text
    data = json.loads(answer.content)
    assert data["uuid"] == server["id"] and data["name"] == "md-server"
    assert data["public_keys"] == {"mdkey": KEY}
    assert data["project_id"] == server["project_id"]
    assert _get(md_cloud, "/openstack/latest/user_data", _signed(server)).content == USER_DATA
    key = _get(md_cloud, "/latest/meta-data/public-keys/0/openssh-key", _signed(server))
    assert key.text == KEY
    listing = _get(md_cloud, "/2009-04-04/meta-data/", _signed(server)).text.splitlines()
    assert {"instance-id", "hostname", "local-ipv4", "public-keys/", "placement/"} <= set(listing)
    assert _get(md_cloud, "/latest/user-data", _signed(server)).content == USER_DATA


def test_forged_unsigned_and_foreign_requests_are_refused(
    md_cloud: Cloud, server: dict[str, Any]
) -> None:
    path = "/openstack/latest/meta_data.json"
    other = "0b0b0b0b-1111-4222-8333-444444444444"
    refused = {
        "guessed secret": _signed(server, secret="guessed"),
        "forged id": _signed(server, **{"X-Instance-ID": other}),
        "other project": _signed(server, **{"X-Tenant-ID": "someone-else"}),
        "no signature": {k: v for k, v in _signed(server).items() if "Signature" not in k},
    }
    for why, headers in refused.items():
        answer = _get(md_cloud, path, headers)
        assert answer.status_code == 403, (why, answer.status_code, answer.text)
        assert server["id"] not in answer.text and "mdkey" not in answer.text
    forwarded_only = _get(md_cloud, path, {"X-Forwarded-For": "10.0.0.9"})
    assert forwarded_only.status_code == 400
    unknown = {**_signed(server), "X-Instance-ID": other,
               "X-Instance-ID-Signature": sign(SECRET, other)}  # fmt: skip
    assert _get(md_cloud, path, unknown).status_code == 404


def test_the_password_is_posted_once(md_cloud: Cloud, server: dict[str, Any]) -> None:
    url = md_cloud.url("metadata") + "/openstack/latest/password"
    secret = base64.b64encode(b"encrypted password").decode()
    first = requests.post(url, data=secret, headers=_signed(server), timeout=30)
    assert first.status_code == 200, first.text
    second = requests.post(url, data="another", headers=_signed(server), timeout=30)
    assert second.status_code == 409
    assert requests.get(url, headers=_signed(server), timeout=30).text == secret
