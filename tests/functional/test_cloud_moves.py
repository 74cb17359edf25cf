"""Moving servers through the real `openstack` CLI on one `saphira up` with two
simulated hosts (`[fake_driver] hosts`): cold migrate, confirm, resize to the
other host, revert, the migrations listed, and an evacuation once a host's
compute service is forced down; placement's usage on both hosts at each step."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.functional.cloud import Cloud, start_cloud

pytestmark = pytest.mark.functional

F1 = {"VCPU": 1, "MEMORY_MB": 64, "DISK_GB": 1}
F2 = {"VCPU": 2, "MEMORY_MB": 128, "DISK_GB": 1}
NONE = {"VCPU": 0, "MEMORY_MB": 0, "DISK_GB": 0}


class Usage:
    """Placement's usages per provider name, read with an admin token."""

    def __init__(self, cloud: Cloud) -> None:
        token = cloud.openstack("token", "issue", "-f", "value", "-c", "id").strip()
        self.url = cloud.url("placement").rstrip("/")
        self.headers = {"X-Auth-Token": token, "OpenStack-API-Version": "placement 1.30"}

    def _get(self, path: str) -> Any:
        response = requests.get(f"{self.url}{path}", headers=self.headers, timeout=30)
        assert response.status_code == 200, response.text
        return response.json()

    def of(self, host: str) -> dict[str, int]:
        (provider,) = self._get(f"/resource_providers?name={host}")["resource_providers"]
        usages = self._get(f"/resource_providers/{provider['uuid']}/usages")["usages"]
        return {k: int(usages.get(k, 0)) for k in NONE}


def _server(cloud: Cloud, name: str) -> dict[str, Any]:
    shown: dict[str, Any] = cloud.openstack("server", "show", name, "-f", "json")
    return shown


def _flavor(shown: dict[str, Any]) -> str:
    """The flavor's name whatever shape the CLI prints it in (id or embedded)."""
    flavor = shown["flavor"]
    if isinstance(flavor, dict):
        return str(flavor.get("original_name") or flavor.get("name"))
    return str(flavor).split(" ")[0]


def _wait(cloud: Cloud, name: str, status: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while (shown := _server(cloud, name))["status"] != status or shown.get("OS-EXT-STS:task_state"):
        assert shown["status"] != "ERROR", shown
        assert time.monotonic() < deadline, shown
        time.sleep(0.2)
    return shown


def test_migrate_resize_and_evacuate_through_the_cli(tmp_path: Path) -> None:
    conf = tmp_path / "hosts.conf"
    conf.write_text("[fake_driver]\nhosts = alpha, beta\n", encoding="utf-8")
    cloud = start_cloud(str(tmp_path), ["--config-file", str(conf)])
    try:
        run = cloud.openstack
        run("flavor", "create", "--vcpus", "1", "--ram", "64", "--disk", "1", "f1")
        run("flavor", "create", "--vcpus", "2", "--ram", "128", "--disk", "1", "f2")
        disk = tmp_path / "img.raw"
        disk.write_bytes(b"\0" * 4096)
        run("image", "create", "--disk-format", "raw", "--container-format", "bare",
            "--file", str(disk), "img")  # fmt: skip
        run("server", "create", "--flavor", "f1", "--image", "img", "--no-network", "--wait", "s1")
        usage = Usage(cloud)
        first = _server(cloud, "s1")["OS-EXT-SRV-ATTR:host"]
        other = {"alpha": "beta", "beta": "alpha"}[first]

        run("server", "migrate", "s1")
        moved = _wait(cloud, "s1", "VERIFY_RESIZE")
        assert moved["OS-EXT-SRV-ATTR:host"] == other
        assert (usage.of(first), usage.of(other)) == (F1, F1)  # both held meanwhile
        listed = run("server", "migration", "list", "-f", "json")
        assert [m["Status"] for m in listed] == ["finished"]
        run("server", "resize", "confirm", "s1")
        _wait(cloud, "s1", "ACTIVE")
        assert (usage.of(first), usage.of(other)) == (NONE, F1)

        run("server", "resize", "--flavor", "f2", "s1")
        resized = _wait(cloud, "s1", "VERIFY_RESIZE")
        assert resized["OS-EXT-SRV-ATTR:host"] in {first, other}
        run("server", "resize", "revert", "s1")
        back = _wait(cloud, "s1", "ACTIVE")
        assert back["OS-EXT-SRV-ATTR:host"] == other and _flavor(back) == "f1"
        assert (usage.of(first), usage.of(other)) == (NONE, F1)

        run("--os-compute-api-version", "2.11", "compute", "service", "set", "--down",
            other, "nova-compute")  # fmt: skip
        run("--os-compute-api-version", "2.14", "server", "evacuate", "s1")
        evacuated = _wait(cloud, "s1", "ACTIVE")
        assert evacuated["OS-EXT-SRV-ATTR:host"] == first
        assert (usage.of(first), usage.of(other)) == (F1, F1)  # until `other` comes back
        refused = run("--os-compute-api-version", "2.30", "server", "migrate", "--live-migration",
                      "s1", check=False)  # fmt: skip
        assert refused.returncode != 0 and "live migration is not supported" in refused.stderr
        assert cloud.stop() == 0, cloud.log()
    finally:
        cloud.kill()
