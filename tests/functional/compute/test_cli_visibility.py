"""The real CLI shows what the scheduler could not use and why a build failed:
an unmapped compute host in `compute service list --long`, the per-host
reasons in `server event show` (2.84's details), a hypervisor's uptime."""

from __future__ import annotations

import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import sqlalchemy as sa

import saphira.conf
from saphira.api.compute.hosts import UNMAPPED
from saphira.db.api import connect
from saphira.db.api.models import HostMapping
from saphira.db.cell.models import ComputeNode
from saphira.db.engine import make_engine
from saphira.virt.fake.driver import UPTIME
from tests.functional.cloud import Cloud
from tests.functional.process import clean_env

SCHEDULE_EVENT = "conductor_schedule_and_build_instances"


def _compute_reasons(cloud: Cloud) -> dict[str, Any]:
    listed = cloud.openstack("compute", "service", "list", "--long", "--service", "nova-compute",
                             "-f", "json")  # fmt: skip
    return {row["Host"]: row["Disabled Reason"] for row in listed}


def _manage(cloud: Cloud, *args: str) -> str:
    manage = Path(cloud.command()[0]).parent / "saphira-manage"
    result = subprocess.run(
        [str(manage), "--config-file", str(cloud.state_dir / "saphira.conf"), *args],
        capture_output=True, text=True, env=clean_env(), timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout


def _unmap(cloud: Cloud, host: str) -> None:
    """What an operator sees before discover_hosts: no host mapping, and the
    cell's node not marked mapped (as Nova's cell_v2 delete_host leaves it)."""
    conf = saphira.conf.load(["--config-file", str(cloud.state_dir / "saphira.conf")])
    for url, stmt in (
        (connect.api_url(conf), sa.delete(HostMapping).where(HostMapping.host == host)),
        (connect.cell_url(conf), sa.update(ComputeNode).where(ComputeNode.host == host)
                                   .values(mapped=0)),
    ):  # fmt: skip
        engine = make_engine(url)
        try:
            with engine.begin() as connection:
                assert connection.execute(stmt).rowcount == 1
        finally:
            engine.dispose()


def test_service_list_long_names_an_unmapped_host(cloud: Cloud) -> None:
    reasons = _compute_reasons(cloud)
    host = sorted(reasons)[0]
    assert reasons[host] is None, reasons
    _unmap(cloud, host)
    reasons = _compute_reasons(cloud)
    assert reasons[host] == UNMAPPED
    # (`hypervisor show` keeps only the service's host and id: the API test covers
    # os-hypervisors' service.disabled_reason.)
    _manage(cloud, "cell_v2", "discover_hosts")
    assert _compute_reasons(cloud)[host] is None


def test_server_event_show_gives_the_per_host_reasons(cloud: Cloud, tmp_path: Path) -> None:
    name = f"huge-{uuid.uuid4().hex[:6]}"
    cloud.openstack("flavor", "create", "--ram", "64", "--vcpus", "1", "--disk", "100000",
                    "--public", name)  # fmt: skip
    disk = tmp_path / "disk.raw"
    disk.write_bytes(b"\0" * 4096)
    image = cloud.openstack("image", "create", "--file", str(disk), "--disk-format", "raw",
                            "--container-format", "bare", "--public", name,
                            "-f", "json")["id"]  # fmt: skip
    server = cloud.openstack("server", "create", "--flavor", name, "--image", image,
                             "--no-network", name, "-f", "json", cloud="demo")  # fmt: skip
    deadline = time.monotonic() + 30
    while (shown := cloud.openstack("server", "show", server["id"], "-f", "json",
                                    cloud="demo"))["status"] != "ERROR":  # fmt: skip
        assert time.monotonic() < deadline, shown
        time.sleep(0.2)
    message = shown["fault"]["message"]
    assert "DISK_GB" in message, shown["fault"]
    events = cloud.openstack("server", "event", "list", server["id"], "-f", "json", cloud="demo")
    request_id = next(e["Request ID"] for e in events if e["Action"] == "create")
    for user in ("demo", "admin"):
        detail = cloud.openstack("--os-compute-api-version", "2.84", "server", "event", "show",
                                 server["id"], request_id, "-f", "json", cloud=user)  # fmt: skip
        event = next(e for e in detail["events"] if e["event"] == SCHEDULE_EVENT)
        assert event["result"] == "Error" and event["details"] == message, event
    cloud.openstack("server", "delete", "--wait", server["id"], cloud="demo")


def test_hypervisor_uptime_from_the_compute_host(cloud: Cloud) -> None:
    listed = cloud.openstack("--os-compute-api-version", "2.88", "hypervisor", "list",
                             "-f", "json")  # fmt: skip
    shown = cloud.openstack("--os-compute-api-version", "2.88", "hypervisor", "show",
                            listed[0]["Hypervisor Hostname"], "-f", "json")  # fmt: skip
    # The CLI splits the host's uptime(1) line into its parts: all of them came over RPC.
    assert shown["host_time"] and shown["host_time"] in UPTIME, shown
    assert f" up {shown['uptime']}," in UPTIME, shown
    assert shown["load_average"] and shown["load_average"] in UPTIME, shown
