"""The real `openstack` CLI building and driving servers on `saphira up` (fake
driver, in-process scheduler, conductor and compute hosts): the acceptance list
of issue 4, against one cloud for the module.

Commands without ``--wait`` in the client (stop, start, pause...) are followed
by polling the API through openstacksdk, which is quicker than the CLI.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.functional.clients import sdk
from tests.functional.cloud import Cloud

WAIT = 60


@pytest.fixture(scope="module")
def demo_sdk(cloud: Cloud) -> Any:
    return sdk(cloud.clouds_yaml, "demo")


@pytest.fixture(scope="module")
def catalog(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Two public flavors and a public image for every test here."""
    disk = Path(tmp_path_factory.mktemp("image")) / "disk.raw"
    disk.write_bytes(bytes(1024))
    for name, ram in (("cli.m1", "128"), ("cli.m2", "256")):
        cloud.openstack("flavor", "create", "--ram", ram, "--vcpus", "1", "--disk", "1", name)
    image = cloud.openstack("image", "create", "--file", str(disk), "--disk-format", "raw",
                            "--container-format", "bare", "--public", "cli-image",
                            "-f", "json")  # fmt: skip
    yield {"flavor": "cli.m1", "bigger": "cli.m2", "image": image["id"]}


def wait_for(conn: Any, server: str, status: str, task_state: str | None = None) -> Any:
    """The server once it shows ``status`` with no task running; fails on ERROR."""
    deadline = time.monotonic() + WAIT
    while True:
        found = conn.compute.get_server(server)
        if found.status == status and found.task_state == task_state:
            return found
        assert found.status != "ERROR", found.fault
        assert time.monotonic() < deadline, f"{server}: {found.status}/{found.task_state}"
        time.sleep(0.05)


def _by_name(cloud: Cloud) -> dict[str, dict[str, Any]]:
    return {s["Name"]: s for s in cloud.openstack("server", "list", "-f", "json", cloud="demo")}


def test_create_min_max_list_show_set_delete(
    cloud: Cloud, catalog: dict[str, str], demo_sdk: Any
) -> None:
    created = cloud.openstack("server", "create", "--flavor", catalog["flavor"], "--image",
                              catalog["image"], "--no-network", "--min", "2", "--max", "3",
                              "--wait", "batch", "-f", "json", cloud="demo")  # fmt: skip
    assert created["status"] == "ACTIVE"
    servers = _by_name(cloud)
    assert {"batch-1", "batch-2", "batch-3"} <= set(servers)
    for name in ("batch-1", "batch-2", "batch-3"):
        wait_for(demo_sdk, servers[name]["ID"], "ACTIVE")
    shown = cloud.openstack("server", "show", "batch-2", "-f", "json", cloud="demo")
    assert shown["status"] == "ACTIVE" and catalog["flavor"] in str(shown["flavor"])
    assert shown["OS-EXT-STS:power_state"] in ("Running", 1)
    cloud.openstack("server", "set", "--name", "renamed", "--property", "role=web",
                    "--description", "the web one", "batch-1", cloud="demo")  # fmt: skip
    renamed = cloud.openstack("server", "show", "renamed", "-f", "json", cloud="demo")
    assert renamed["properties"] == {"role": "web"} and renamed["description"] == "the web one"
    cloud.openstack("server", "delete", "--wait", "renamed", "batch-2", "batch-3", cloud="demo")
    assert not {"renamed", "batch-2", "batch-3"} & set(_by_name(cloud))


def test_power_and_lock_actions(cloud: Cloud, catalog: dict[str, str], demo_sdk: Any) -> None:
    made = cloud.openstack("server", "create", "--flavor", catalog["flavor"], "--image",
                           catalog["image"], "--no-network", "--wait", "acts",
                           "-f", "json", cloud="demo")  # fmt: skip
    server = made["id"]
    for action, status in (("stop", "SHUTOFF"), ("start", "ACTIVE"), ("pause", "PAUSED"),
                           ("unpause", "ACTIVE"), ("suspend", "SUSPENDED"),
                           ("resume", "ACTIVE")):  # fmt: skip
        cloud.openstack("server", action, server, cloud="demo")
        wait_for(demo_sdk, server, status)
    cloud.openstack("server", "reboot", "--hard", "--wait", server, cloud="demo")
    cloud.openstack("server", "rebuild", "--image", catalog["image"], "--wait", server,
                    cloud="demo")  # fmt: skip
    cloud.openstack("server", "lock", "--reason", "hands off", server, cloud="demo")
    locked = cloud.openstack("server", "show", server, "-f", "json", cloud="demo")
    assert locked["locked"] is True and locked["locked_reason"] == "hands off"
    refused = cloud.openstack("server", "stop", server, cloud="demo", check=False)
    assert refused.returncode != 0 and "locked" in refused.stderr, refused.stderr
    assert demo_sdk.compute.get_server(server).status == "ACTIVE"
    # An admin acts on a locked server regardless (Nova's check_instance_lock).
    cloud.openstack("server", "stop", server, cloud="admin")
    wait_for(demo_sdk, server, "SHUTOFF")
    cloud.openstack("server", "unlock", server, cloud="demo")
    assert demo_sdk.compute.get_server(server).is_locked is False
    events = cloud.openstack("server", "event", "list", server, "-f", "json", cloud="demo")
    recorded = {e["Action"] for e in events}
    assert {"create", "stop", "start", "pause", "unpause", "suspend", "resume", "reboot",
            "rebuild", "lock", "unlock"} <= recorded, recorded  # fmt: skip
    request = next(e["Request ID"] for e in events if e["Action"] == "create")
    detail = cloud.openstack("server", "event", "show", server, request, "-f", "json")
    assert detail["action"] == "create" and detail["events"]


def test_resize_confirm_and_revert(cloud: Cloud, catalog: dict[str, str], demo_sdk: Any) -> None:
    made = cloud.openstack("server", "create", "--flavor", catalog["flavor"], "--image",
                           catalog["image"], "--no-network", "--min", "2", "--max", "2",
                           "--wait", "rsz", "-f", "json", cloud="demo")  # fmt: skip
    servers = _by_name(cloud)
    first, second = servers["rsz-1"]["ID"], servers["rsz-2"]["ID"]
    assert made["id"] in (first, second)
    wait_for(demo_sdk, second, "ACTIVE")
    wait_for(demo_sdk, first, "ACTIVE")
    for server in (first, second):
        cloud.openstack("server", "resize", "--flavor", catalog["bigger"], "--wait", server,
                        cloud="demo")  # fmt: skip
        wait_for(demo_sdk, server, "VERIFY_RESIZE")
    cloud.openstack("server", "resize", "confirm", first, cloud="demo")
    cloud.openstack("server", "resize", "revert", second, cloud="demo")
    assert wait_for(demo_sdk, first, "ACTIVE").flavor["original_name"] == catalog["bigger"]
    assert wait_for(demo_sdk, second, "ACTIVE").flavor["original_name"] == catalog["flavor"]
    cloud.openstack("server", "delete", "--wait", first, second, cloud="demo")


def test_snapshot_and_console_log(cloud: Cloud, catalog: dict[str, str], demo_sdk: Any) -> None:
    made = cloud.openstack("server", "create", "--flavor", catalog["flavor"], "--image",
                           catalog["image"], "--no-network", "--wait", "snapme",
                           "-f", "json", cloud="demo")  # fmt: skip
    image = cloud.openstack("server", "image", "create", "--name", "snap", "--wait",
                            made["id"], "-f", "json", cloud="demo")  # fmt: skip
    assert image["status"] == "active" and image["name"] == "snap"
    wait_for(demo_sdk, made["id"], "ACTIVE")
    log = cloud.openstack("console", "log", "show", "--lines", "5", made["id"], cloud="demo")
    lines = log.strip("\n").splitlines()
    assert 0 < len(lines) <= 5, log
    cloud.openstack("server", "delete", "--wait", made["id"], cloud="demo")


def test_operator_views(cloud: Cloud) -> None:
    quota = cloud.openstack("quota", "show", "--compute", "demo", "-f", "json")
    assert any(q.get("Resource") == "instances" for q in quota) if isinstance(quota, list) \
        else "instances" in quota  # fmt: skip
    limits = cloud.openstack("limits", "show", "--absolute", "-f", "json", cloud="demo")
    assert any(item["Name"] == "instances_used" for item in limits), limits
    hypervisors = cloud.openstack("hypervisor", "list", "-f", "json")
    assert hypervisors and all(h["State"] == "up" for h in hypervisors)
    first = cloud.openstack("hypervisor", "show", hypervisors[0]["ID"], "-f", "json")
    assert first["hypervisor_hostname"] == hypervisors[0]["Hypervisor Hostname"]
    services = cloud.openstack("compute", "service", "list", "-f", "json")
    binaries = {s["Binary"] for s in services}
    assert {"nova-conductor", "nova-compute"} <= binaries, services
    host = next(s["Host"] for s in services if s["Binary"] == "nova-compute")
    cloud.openstack("compute", "service", "set", "--disable", "--disable-reason", "maint",
                    host, "nova-compute")  # fmt: skip
    disabled = cloud.openstack("compute", "service", "list", "--host", host, "--service",
                               "nova-compute", "--long", "-f", "json")  # fmt: skip
    assert disabled[0]["Status"] == "disabled" and disabled[0]["Disabled Reason"] == "maint"
    cloud.openstack("compute", "service", "set", "--enable", host, "nova-compute")
    zones = cloud.openstack("availability", "zone", "list", "--compute", "-f", "json")
    assert any(z["Zone Name"] == "nova" and z["Zone Status"] == "available" for z in zones), zones
    group = cloud.openstack("server", "group", "create", "--policy", "affinity", "cli-grp",
                            "-f", "json", cloud="demo")  # fmt: skip
    assert group["policy"] == "affinity"
