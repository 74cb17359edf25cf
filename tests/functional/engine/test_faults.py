"""Faults through the API: reschedules, every host failing, a host dying
mid-build, and deleting what is left in ERROR."""

from __future__ import annotations

import threading
import time

import sqlalchemy as sa

from saphira.db.api import build_requests
from saphira.db.api.models import InstanceMapping
from saphira.db.api.models import RequestSpec as SpecRow
from saphira.domain.states import VmState
from tests.functional.engine.conftest import Plane

TINY = {"VCPU": 1, "MEMORY_MB": 512, "DISK_GB": 1}


def _create(plane: Plane, name: str = "vm") -> str:
    response = plane.api.create(name)
    assert response.status_code == 202, response.get_data(True)
    return str(response.get_json()["server"]["id"])


def _events(plane: Plane, server_id: str) -> list[tuple[str, str]]:
    api = plane.api
    entry = next(a for a in api.actions(server_id) if a["action"] == "create")
    detail = api.action_detail(server_id, entry["request_id"])
    return [(e["event"], e["result"]) for e in detail["events"]]


def assert_nothing_left(plane: Plane, server_id: str) -> None:
    """No live instance row, no claim, no build request, no live mapping or spec."""
    assert not plane.placement.get_allocations(server_id)["allocations"]
    with plane.conductor.dbs.api() as api:
        assert build_requests.get(api, server_id) is None
        mapping = api.scalars(sa.select(InstanceMapping).filter_by(instance_uuid=server_id)).first()
        assert mapping is None or mapping.queued_for_delete
        in_cell = mapping is not None and mapping.cell_id is not None
        if mapping is None:
            assert (
                api.scalars(sa.select(SpecRow).filter_by(instance_uuid=server_id)).first() is None
            )
    if in_cell:
        assert plane.instance(server_id).vm_state is VmState.DELETED
    assert plane.api.call("GET", f"/servers/{server_id}", user="admin").status_code == 404
    for driver in plane.drivers.values():
        assert server_id not in driver.guests


def test_spawn_failing_on_one_host_reschedules_and_goes_active(plane: Plane) -> None:
    plane.add_host("host-a")
    plane.add_host("host-b")
    plane.faults.fail("spawn", hosts=["host-a"], reason="disk on fire")
    server_id = _create(plane)
    shown = plane.api.wait(server_id, "ACTIVE", user="admin")
    assert shown["OS-EXT-SRV-ATTR:host"] == "host-b"
    assert plane.allocations(server_id) == {"host-b": TINY}
    assert plane.usages("host-a") == {"VCPU": 0, "MEMORY_MB": 0, "DISK_GB": 0}
    events = _events(plane, server_id)
    assert ("compute_build_and_run_instance", "Error") in events
    assert ("compute_build_and_run_instance", "Success") in events


def test_failing_on_every_host_is_error_naming_them_then_delete_releases(plane: Plane) -> None:
    plane.add_host("host-a")
    plane.add_host("host-b")
    plane.faults.fail("spawn", reason="no luck")
    server_id = _create(plane)
    failed = plane.api.wait(server_id, "ERROR", user="admin")
    details = failed["fault"]["details"]
    assert "host-a" in details and "host-b" in details and "no luck" in details, details
    member = plane.api.wait(server_id, "ERROR")["fault"]
    assert "host-" not in str(member) and "failed on every host tried (2 of" in member["message"]
    assert not plane.placement.get_allocations(server_id)["allocations"]
    deleted = plane.api.call("DELETE", f"/servers/{server_id}")
    assert deleted.status_code == 204, deleted.get_data(True)
    plane.api.wait_gone(server_id)
    plane.wait(server_id, lambda i: i.vm_state is VmState.DELETED)
    assert_nothing_left(plane, server_id)


def test_no_valid_host_lands_in_cell0_and_deletes(plane: Plane) -> None:
    plane.add_host("host-a", resources=(8, 16384, 1))  # m1.small wants 2 GB of disk
    response = plane.api.create("too-big", flavor="2")
    assert response.status_code == 202
    server_id = str(response.get_json()["server"]["id"])
    failed = plane.api.wait(server_id, "ERROR", user="admin")
    assert "host-a" in failed["fault"]["details"], failed["fault"]
    assert plane.api.call("DELETE", f"/servers/{server_id}").status_code == 204
    plane.api.wait_gone(server_id)
    assert_nothing_left(plane, server_id)


def test_host_down_mid_build_is_error_with_the_claim_released(plane: Plane) -> None:
    plane.conf.set_override("service_down_time", 1)
    compute = plane.add_host("host-a")
    release = threading.Event()
    plane.drivers["host-a"].delay = 1.0

    def hang(_seconds: float) -> None:
        release.wait(30)

    plane.drivers["host-a"]._sleep = hang
    server_id = _create(plane)
    plane.wait(server_id, lambda i: i.host == "host-a")
    assert plane.placement.get_allocations(server_id)["allocations"]
    for timer in compute._timers:  # the agent hangs: no more heartbeats
        timer.stop()
    deadline = time.monotonic() + 20
    while server_id not in plane.conductor.check_stuck_builds():
        assert time.monotonic() < deadline, "the watchdog never failed the build"
        time.sleep(0.2)
    failed = plane.api.server(server_id, "admin")
    assert failed["status"] == "ERROR"
    assert failed["fault"]["message"] == "The compute host went down during the build."
    assert "host host-a went down during the build" in failed["fault"]["details"]
    assert "host-a" not in str(plane.api.server(server_id)["fault"])  # the member's view
    assert not plane.placement.get_allocations(server_id)["allocations"]
    release.set()  # the agent wakes up: its late spawn must not resurrect the server
    time.sleep(0.3)
    assert plane.api.server(server_id, "admin")["status"] == "ERROR"
    assert not plane.placement.get_allocations(server_id)["allocations"]
    deadline = time.monotonic() + 20
    while server_id in plane.drivers["host-a"].guests:  # the late guest is cleaned up
        assert time.monotonic() < deadline, "the late guest was left running"
        time.sleep(0.05)
    assert plane.api.call("DELETE", f"/servers/{server_id}", user="admin").status_code == 204
    plane.api.wait_gone(server_id)
