"""Quota under concurrent creates through the API, and deletes that race the build."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import sqlalchemy as sa

from saphira.db.cell import models
from tests.functional.engine.conftest import Plane
from tests.functional.engine.test_faults import assert_nothing_left
from tests.polling import wait_for


def test_fifty_concurrent_creates_against_a_quota_of_ten(plane: Plane) -> None:
    plane.add_host("host-a")
    plane.add_host("host-b")
    api = plane.api
    project = api.project_id("demo")
    api.ok("PUT", f"/os-quota-sets/{project}", {"quota_set": {"instances": 10}}, user="admin")
    api.token("demo")  # one token for every thread
    with ThreadPoolExecutor(max_workers=50) as pool:
        responses = list(pool.map(lambda n: api.create(f"vm-{n}"), range(50)))
    created = [r.get_json()["server"]["id"] for r in responses if r.status_code == 202]
    refused = [r for r in responses if r.status_code != 202]
    assert len(created) == 10, [r.get_data(True) for r in refused[:3]]
    for response in refused:
        assert response.status_code == 403, response.get_data(True)
        fault = response.get_json()["forbidden"]  # Nova's shape for an exceeded quota
        assert "Quota exceeded for instances" in fault["message"], fault
    for server_id in created:
        api.wait(server_id, "ACTIVE")
    listed = api.ok("GET", "/servers")["servers"]
    assert sorted(s["id"] for s in listed) == sorted(created)
    usage = api.ok("GET", "/limits")["limits"]["absolute"]
    assert usage["totalInstancesUsed"] == 10


def _hold(monkeypatch: pytest.MonkeyPatch, endpoint: Any, method: str) -> tuple[
        threading.Event, threading.Event]:  # fmt: skip
    """Make ``endpoint.method`` wait for the first event; the second is set when it returned."""
    gate, done = threading.Event(), threading.Event()
    original: Callable[..., Any] = getattr(endpoint, method)

    def held(*args: Any, **kwargs: Any) -> Any:
        assert gate.wait(30), f"{method} was never released"
        try:
            return original(*args, **kwargs)
        finally:
            done.set()

    monkeypatch.setattr(endpoint, method, held)
    return gate, done


def _live_rows(plane: Plane, server_id: str) -> int:
    count = 0
    for cell in plane.conductor.dbs.cells(with_cell0=True):
        with plane.conductor.dbs.cell(cell.url) as session:
            count += len(session.scalars(sa.select(models.Instance.id).filter_by(
                uuid=server_id, deleted=0)).all())  # fmt: skip
    return count


def test_delete_before_the_build_is_scheduled(
    plane: Plane, monkeypatch: pytest.MonkeyPatch
) -> None:
    plane.add_host("host-a")
    gate, done = _hold(monkeypatch, plane.conductor.manager, "schedule_and_build_instances")
    response = plane.api.create()
    assert response.status_code == 202
    server_id = str(response.get_json()["server"]["id"])
    assert plane.api.server(server_id)["status"] == "BUILD"
    assert plane.api.call("DELETE", f"/servers/{server_id}").status_code == 204
    gate.set()
    assert done.wait(30)
    assert _live_rows(plane, server_id) == 0
    assert_nothing_left(plane, server_id)


def test_delete_just_after_scheduling(plane: Plane, monkeypatch: pytest.MonkeyPatch) -> None:
    compute = plane.add_host("host-a")
    gate, done = _hold(monkeypatch, compute.manager, "build_and_run_instance")
    response = plane.api.create()
    assert response.status_code == 202
    server_id = str(response.get_json()["server"]["id"])
    plane.wait(server_id, lambda i: i.host == "host-a")
    assert plane.placement.get_allocations(server_id)["allocations"]
    assert plane.api.call("DELETE", f"/servers/{server_id}").status_code == 204
    gate.set()
    assert done.wait(30)
    plane.api.wait_gone(server_id)
    plane.wait(server_id, lambda i: i.vm_state == "deleted")
    assert _live_rows(plane, server_id) == 0
    assert_nothing_left(plane, server_id)


def test_anti_affinity_group_members_land_on_different_hosts(plane: Plane) -> None:
    plane.add_host("host-a")
    plane.add_host("host-b")
    api = plane.api
    group = api.ok("POST", "/os-server-groups",
                   {"server_group": {"name": "g", "policies": ["anti-affinity"]}})  # fmt: skip
    hints = {"group": group["server_group"]["id"]}
    created = []
    for name in ("g1", "g2"):
        server = {"name": name, "flavorRef": "1", "imageRef": api.image_id}
        response = api.call("POST", "/servers", {"server": server, "os:scheduler_hints": hints})
        assert response.status_code == 202, response.get_data(True)
        created.append(response.get_json()["server"]["id"])
        api.wait(created[-1], "ACTIVE")  # placed members are seen; racing ones are not yet
    hosts = {api.server(s, "admin")["OS-EXT-SRV-ATTR:host"] for s in created}
    assert hosts == {"host-a", "host-b"}
    group_url = f"/os-server-groups/{group['server_group']['id']}"
    assert sorted(api.ok("GET", group_url)["server_group"]["members"]) == sorted(created)
    api.ok("DELETE", f"/servers/{created[0]}", status=204)
    wait_for(
        "the deleted server out of its group",
        lambda: api.ok("GET", group_url)["server_group"]["members"] == [created[1]],
        interval=0.02,
    )
