"""Each service its own OS process over RabbitMQ, on PostgreSQL and on MariaDB:
the real CLI builds and deletes a server, with no process running as root; a
compute host killed mid-build leaves the server in ERROR with its placement
claim released."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import requests

from saphira.clients.endpoints import local_url
from tests.integration.deploy.deployment import Deployment
from tests.polling import wait_for
from tests.unprivileged import descendants, uid_of

pytestmark = pytest.mark.integration
Make = Callable[..., Deployment]


def _start_control(deploy: Deployment) -> None:
    deploy.start("api", "api")
    deploy.start("conductor", "conductor")
    deploy.start("scheduler", "scheduler")


def _wait_for(what: str, check: Callable[[], Any], deploy: Deployment, timeout: float = 60) -> Any:
    """``wait_for``, with every service's log when it never happens."""
    try:
        return wait_for(what, check, timeout, interval=0.5)
    except AssertionError as error:
        raise AssertionError(f"{error}\n{deploy.logs()}") from None


# PostgreSQL here, MariaDB in the next test: each deployment scenario runs on one
# database server, both servers across tests/integration/{deploy,join,rabbit}
@pytest.mark.parametrize("databases", ["postgresql"], indirect=True)
def test_build_and_delete_with_every_service_in_its_own_process(
    deployment: Make, tmp_path: Path
) -> None:
    deploy = deployment()
    _start_control(deploy)
    deploy.start("compute-a", "compute", host="compute-a")
    assert deploy.discover_hosts() == ["compute-a"]
    image = deploy.tiny_flavor_and_image(tmp_path)

    server = deploy.openstack(
        "server", "create", "--flavor", "tiny", "--image", image, "--no-network",
        "--wait", "s1", "-f", "json",
    )  # fmt: skip

    assert (server["status"], server["OS-EXT-SRV-ATTR:host"]) == ("ACTIVE", "compute-a")
    _assert_no_process_runs_as_root(deploy)
    listed = deploy.openstack("server", "list", "-f", "json")
    assert [(s["Name"], s["Status"]) for s in listed] == [("s1", "ACTIVE")]
    deploy.openstack("server", "delete", "--wait", "s1")
    assert deploy.openstack("server", "list", "-f", "json") == []
    codes = deploy.stop_all()
    assert codes == dict.fromkeys(codes, 0), deploy.logs()
    assert set(codes) == {"api", "conductor", "scheduler", "compute-a"}


def _assert_no_process_runs_as_root(deploy: Deployment) -> None:
    """Every service and whatever it started runs as the saphira user (none needs root)."""
    assert deploy.account is not None
    pids = [p.proc.pid for p in deploy.processes.values() if p.proc is not None]
    assert len(pids) == 4
    every = [*pids, *(child for pid in pids for child in descendants(pid))]
    assert {pid: uid_of(pid) for pid in every} == dict.fromkeys(every, deploy.account.uid)


def _allocations(deploy: Deployment, server_id: str) -> dict[str, Any]:
    assert deploy.conf is not None
    token = deploy.openstack("token", "issue", "-f", "value", "-c", "id").strip()
    response = requests.get(
        f"{local_url(deploy.conf, 'placement')}/allocations/{server_id}",
        headers={"X-Auth-Token": token, "OpenStack-API-Version": "placement 1.28"},
        timeout=30,
    )
    response.raise_for_status()
    found: dict[str, Any] = response.json()["allocations"]
    return found


# MariaDB here, PostgreSQL in the test above
@pytest.mark.parametrize("databases", ["mariadb"], indirect=True)
def test_compute_killed_mid_build_leaves_error_and_releases_the_claim(
    deployment: Make, tmp_path: Path
) -> None:
    deploy = deployment({"fake_driver": {"delay": 120}})  # a spawn outlives the test
    _start_control(deploy)
    compute = deploy.start("compute-slow", "compute", host="compute-slow")
    assert deploy.discover_hosts() == ["compute-slow"]
    image = deploy.tiny_flavor_and_image(tmp_path)
    server = deploy.openstack(
        "server", "create", "--flavor", "tiny", "--image", image, "--no-network", "doomed",
        "-f", "json",
    )  # fmt: skip

    def spawning() -> bool:
        shown = deploy.openstack("server", "show", server["id"], "-f", "json")
        claimed = _allocations(deploy, server["id"])
        return bool(shown["OS-EXT-STS:task_state"] == "spawning" and claimed)

    _wait_for("the spawn on compute-slow", spawning, deploy)
    assert compute.proc is not None
    compute.proc.kill()  # SIGKILL: no goodbye, no more heartbeats
    compute.proc.wait()

    def errored() -> dict[str, Any] | None:
        shown: dict[str, Any] = deploy.openstack("server", "show", server["id"], "-f", "json")
        return shown if shown["status"] == "ERROR" else None

    shown = _wait_for("ERROR after the host went down", errored, deploy)
    assert "compute-slow went down during the build" in str(shown["fault"])
    assert _allocations(deploy, server["id"]) == {}
