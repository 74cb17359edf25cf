"""`saphira up` runs the whole compute control plane: the real CLI builds and
deletes a server on the in-process bus with the fake driver, from the first
start on (hosts are discovered by the time the cloud says it is ready)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.functional.cloud import Cloud, start_cloud

pytestmark = pytest.mark.functional


def _image(cloud: Cloud, tmp_path: Path, name: str) -> str:
    disk = tmp_path / f"{name}.raw"
    disk.write_bytes(b"\0" * 4096)
    made: dict[str, Any] = cloud.openstack(
        "image", "create", "--disk-format", "raw", "--container-format", "bare",
        "--file", str(disk), name, "-f", "json",
    )  # fmt: skip
    return str(made["id"])


def _boot(cloud: Cloud, flavor: str, image: str, name: str) -> dict[str, Any]:
    server: dict[str, Any] = cloud.openstack(
        "server", "create", "--flavor", flavor, "--image", image, "--no-network",
        "--wait", name, "-f", "json",
    )  # fmt: skip
    return server


def test_cli_builds_lists_and_deletes_a_server(cloud: Cloud, tmp_path: Path) -> None:
    cloud.openstack("flavor", "create", "--vcpus", "1", "--ram", "64", "--disk", "1", "tiny")
    image = _image(cloud, tmp_path, "tiny-image")

    server = _boot(cloud, "tiny", image, "s1")

    assert server["status"] == "ACTIVE", server
    assert server["OS-EXT-SRV-ATTR:host"]
    listed = cloud.openstack("server", "list", "-f", "json")
    assert [(s["Name"], s["Status"]) for s in listed] == [("s1", "ACTIVE")]
    cloud.openstack("server", "delete", "--wait", "s1")
    assert cloud.openstack("server", "list", "-f", "json") == []


def test_several_fake_hosts_serve_and_stop_leaves_no_thread(tmp_path: Path) -> None:
    conf = tmp_path / "hosts.conf"
    conf.write_text("[fake_driver]\nhosts = alpha, beta\n", encoding="utf-8")
    own = start_cloud(str(tmp_path), ["--config-file", str(conf)])
    try:
        hypervisors = own.openstack("hypervisor", "list", "-f", "json")
        assert sorted(h["Hypervisor Hostname"] for h in hypervisors) == ["alpha", "beta"]
        own.openstack("flavor", "create", "--vcpus", "1", "--ram", "64", "--disk", "1", "f1")
        server = _boot(own, "f1", _image(own, tmp_path, "img"), "on-a-host")
        assert server["status"] == "ACTIVE", server
        assert server["OS-EXT-SRV-ATTR:host"] in {"alpha", "beta"}

        assert own.stop() == 0, own.log()
    finally:
        own.kill()
    log = own.log()
    assert "all services stopped" in log
    assert "threads still running" not in log, log
