"""A process deployment (api, conductor, scheduler, two compute hosts) on a
private RabbitMQ node that is stopped for a few seconds while servers build:
every server ends ACTIVE or ERROR with a fault, none stays in BUILD, every
service's heartbeat resumes, and no process dies."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.broker import PrivateBroker
from tests.integration.deploy.deployment import Deployment
from tests.polling import wait_for
from tests.scratch import traversable_dir

pytestmark = pytest.mark.integration
BUILDS = 6
DOWN_FOR = 5.0  # seconds the broker stays stopped
HOSTS = ("compute-a", "compute-b")


@pytest.fixture
def deploy(databases: dict[str, str], rabbit_node: PrivateBroker) -> Iterator[Deployment]:
    """Every service of a cloud, each its own process, on the private node.

    Each guest operation of the fake driver takes 4 s, so the builds are
    still running when the broker goes away.
    """
    with traversable_dir("saphira-rabbit-") as root:
        found = Deployment(root, databases, rabbit_node.url, {"fake_driver": {"delay": 4}})
        try:
            found.prepare()
            for label in ("api", "conductor", "scheduler"):
                found.start(label, label)
            for host in HOSTS:
                found.start(host, "compute", host=host)
            assert sorted(found.discover_hosts()) == list(HOSTS)
            yield found
        finally:
            found.stop_all()


def _wait_for(what: str, check: Callable[[], Any], deploy: Deployment, timeout: float) -> Any:
    """``wait_for``, with every service's log when it never happens."""
    try:
        return wait_for(what, check, timeout, interval=1.0)
    except AssertionError as error:
        raise AssertionError(f"{error}\n{deploy.logs()}") from None


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None, microsecond=0)


def _updated(service: dict[str, Any]) -> datetime.datetime:
    stamp = datetime.datetime.fromisoformat(str(service["Updated At"]))
    return stamp.replace(tzinfo=None)


# MariaDB here: bench/rabbit_restart.py measures the same on PostgreSQL; the deployment
# tests run on both servers
@pytest.mark.parametrize("databases", ["mariadb"], indirect=True)
def test_builds_end_and_heartbeats_resume_after_a_broker_restart(
    deploy: Deployment, rabbit_node: PrivateBroker, tmp_path: Path
) -> None:
    image = deploy.tiny_flavor_and_image(tmp_path)
    ids = [
        deploy.openstack(
            "server", "create", "--flavor", "tiny", "--image", image, "--no-network",
            f"s{n}", "-f", "json", "-c", "id",
        )["id"]
        for n in range(BUILDS)
    ]  # fmt: skip

    rabbit_node.restart(pause=DOWN_FOR)
    back = _now()

    def settled() -> dict[str, str] | None:
        listed = deploy.openstack("server", "list", "-f", "json", "-c", "ID", "-c", "Status")
        status = {str(s["ID"]): str(s["Status"]) for s in listed}
        return None if "BUILD" in status.values() else status

    status = _wait_for("every build to end", settled, deploy, timeout=240)
    assert sorted(status) == sorted(ids)
    for server_id, state in status.items():
        assert state in ("ACTIVE", "ERROR"), (server_id, state)
        if state == "ERROR":
            shown = deploy.openstack("server", "show", server_id, "-f", "json")
            assert shown.get("fault"), shown
            # The hosts never went down: only the bus did (the watchdog must tell them apart).
            assert "went down" not in str(shown["fault"]), shown

    def beating() -> list[dict[str, Any]] | None:
        services = deploy.openstack("compute", "service", "list", "-f", "json")
        fresh = all(s["State"] == "up" and _updated(s) > back for s in services)
        return services if fresh else None

    services = _wait_for("every heartbeat after the restart", beating, deploy, timeout=60)
    assert {s["Host"] for s in services} >= set(HOSTS)
    alive = {
        label: p.proc is not None and p.proc.poll() is None for label, p in deploy.processes.items()
    }
    assert alive == dict.fromkeys(alive, True), deploy.logs()
