"""Evacuate through the API on fake hosts: a server of a host whose compute
service is forced down is rebuilt on another host from its image; the source
claim stays (the migration's) until the dead host's agent comes back, removes
its leftover guest and frees it."""

from __future__ import annotations

from saphira.compute.evacuate import destroy_evacuated
from tests.functional.engine.conftest import Plane

TINY = {"VCPU": 1, "MEMORY_MB": 512, "DISK_GB": 1}
NONE = {"VCPU": 0, "MEMORY_MB": 0, "DISK_GB": 0}


def _force_down(plane: Plane, host: str, down: bool = True) -> None:
    body = {"host": host, "binary": "nova-compute", "forced_down": down}
    plane.api.ok("PUT", "/os-services/force-down", body, user="admin", version="2.11")


def _booted_on_a(plane: Plane) -> str:
    plane.add_host("host-a")
    server_id = plane.api.boot()
    plane.add_host("host-b")
    return server_id


def test_evacuate_rebuilds_elsewhere_and_the_dead_host_cleans_up(plane: Plane) -> None:
    server_id = _booted_on_a(plane)
    api = plane.api
    _force_down(plane, "host-a")
    response = api.action(server_id, {"evacuate": {}}, user="admin", version="2.14")
    assert response.status_code == 200, response.get_data(True)
    shown = api.wait(server_id, "ACTIVE", user="admin")
    assert shown["OS-EXT-SRV-ATTR:host"] == "host-b"
    assert server_id in plane.drivers["host-b"].guests
    assert plane.allocations(server_id) == {"host-b": TINY}
    assert plane.usages("host-a") == TINY  # the dead host may still hold its disks
    assert api.actions(server_id)[0]["action"] == "evacuate"
    _force_down(plane, "host-a", down=False)  # host-a's agent comes back
    assert destroy_evacuated(plane.computes["host-a"].manager) == [server_id]
    assert server_id not in plane.drivers["host-a"].guests
    assert plane.usages("host-a") == NONE
    assert server_id in plane.drivers["host-b"].guests
    assert destroy_evacuated(plane.computes["host-a"].manager) == []


def test_evacuate_keeps_a_stopped_server_stopped(plane: Plane) -> None:
    server_id = _booted_on_a(plane)
    api = plane.api
    assert api.action(server_id, {"os-stop": None}).status_code == 202
    api.wait(server_id, "SHUTOFF")
    _force_down(plane, "host-a")
    body = {"evacuate": {"host": "host-b"}}
    assert api.action(server_id, body, user="admin", version="2.29").status_code == 200
    shown = api.wait(server_id, "SHUTOFF", user="admin")
    assert shown["OS-EXT-SRV-ATTR:host"] == "host-b"


def test_evacuate_refusals_change_nothing(plane: Plane) -> None:
    server_id = _booted_on_a(plane)
    api = plane.api
    up = api.action(server_id, {"evacuate": {}}, user="admin", version="2.14")
    assert up.status_code == 400 and "still in use" in up.get_data(True)
    _force_down(plane, "host-a")
    cases = [
        ({}, "2.1", "admin", 400),  # onSharedStorage is required before 2.14
        ({"onSharedStorage": True}, "2.1", "admin", 400),  # no shared storage here
        ({"host": "host-a"}, "2.14", "admin", 400),
        ({"host": "nowhere"}, "2.14", "admin", 404),
        ({"force": True}, "2.68", "admin", 400),
        ({}, "2.14", "demo", 403),
    ]
    for body, version, user, status in cases:
        response = api.action(server_id, {"evacuate": body}, user=user, version=version)
        assert response.status_code == status, (body, response.get_data(True))
    assert api.actions(server_id)[0]["action"] == "create"
    assert plane.allocations(server_id) == {"host-a": TINY}
    assert plane.usages("host-b") == NONE


def test_a_failed_evacuation_is_error_on_the_old_host_with_nothing_leaked(plane: Plane) -> None:
    server_id = _booted_on_a(plane)
    api = plane.api
    _force_down(plane, "host-a")
    plane.faults.fail("spawn", hosts=["host-b"], reason="no room for disks")
    pre_2_14 = {"evacuate": {"onSharedStorage": False, "adminPass": "s3cret"}}
    response = api.action(server_id, pre_2_14, user="admin")
    assert response.status_code == 200 and response.get_json() == {"adminPass": "s3cret"}
    failed = api.wait(server_id, "ERROR", user="admin")
    assert "no room for disks" in failed["fault"]["message"]
    assert failed["OS-EXT-SRV-ATTR:host"] == "host-a"
    assert server_id not in plane.drivers["host-b"].guests
    assert plane.allocations(server_id) == {"host-a": TINY}
    assert plane.usages("host-b") == NONE


def test_the_dead_hosts_agent_removes_the_leftover_guest_when_it_starts(plane: Plane) -> None:
    server_id = _booted_on_a(plane)
    api = plane.api
    _force_down(plane, "host-a")
    assert api.action(server_id, {"evacuate": {}}, user="admin", version="2.14").status_code == 200
    api.wait(server_id, "ACTIVE", user="admin")
    plane.computes.pop("host-a").stop()  # host-a's agent was down all along; now it starts
    _force_down(plane, "host-a", down=False)
    plane.add_driver(plane.drivers["host-a"])
    assert server_id not in plane.drivers["host-a"].guests
    assert plane.usages("host-a") == NONE
    assert plane.api.server(server_id, "admin")["OS-EXT-SRV-ATTR:host"] == "host-b"
