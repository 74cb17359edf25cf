"""Every server action through the compute API to the fake hypervisor and back:
end state, instance action and its events."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from saphira.compute.reconcile import reconcile_once
from saphira.context import RequestContext
from saphira.domain.states import PowerState
from tests.functional.engine.conftest import Api, Plane


def _last(api: Api, server_id: str, action: str) -> dict[str, Any]:
    """The newest recorded ``action`` with its events, once its events are finished."""
    listed = [a for a in api.actions(server_id) if a["action"] == action]
    assert listed, f"no {action} action in {api.actions(server_id)}"
    return api.action_detail(server_id, listed[0]["request_id"])


def _succeeded(api: Api, server_id: str, action: str, event: str) -> dict[str, Any]:
    detail = _last(api, server_id, action)
    events = {e["event"]: e for e in detail["events"]}
    assert event in events, detail
    assert events[event]["result"] == "Success", detail
    assert events[event]["finish_time"], detail
    return detail


def test_stop_and_start(plane: Plane) -> None:
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot()
    assert api.action(server_id, {"os-stop": None}).status_code == 202
    stopped = api.wait(server_id, "SHUTOFF")
    assert stopped["OS-EXT-STS:power_state"] == int(PowerState.SHUTDOWN)
    _succeeded(api, server_id, "stop", "compute_stop_instance")
    assert api.action(server_id, {"os-start": None}).status_code == 202
    started = api.wait(server_id, "ACTIVE")
    assert started["OS-EXT-STS:power_state"] == int(PowerState.RUNNING)
    _succeeded(api, server_id, "start", "compute_start_instance")
    create = _last(api, server_id, "create")
    assert {e["event"] for e in create["events"]} >= {"compute_build_and_run_instance"}


def test_reboot_soft_and_hard(plane: Plane) -> None:
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot()
    guest = plane.drivers["host-a"].guests[server_id]
    boots = guest.boots
    for kind in ("SOFT", "HARD"):
        assert api.action(server_id, {"reboot": {"type": kind}}).status_code == 202
        shown = api.wait(server_id, "ACTIVE")
        assert shown["OS-EXT-STS:power_state"] == int(PowerState.RUNNING)
    assert guest.boots == boots + 2
    listed = [a for a in api.actions(server_id) if a["action"] == "reboot"]
    assert len(listed) == 2
    for entry in listed:
        detail = api.action_detail(server_id, entry["request_id"])
        assert [(e["event"], e["result"]) for e in detail["events"]] == [
            ("compute_reboot_instance", "Success")
        ]


def test_rebuild_keeps_the_uuid_and_takes_the_new_image(plane: Plane) -> None:
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot()
    new_image = plane.add_image("other")
    response = api.action(server_id, {"rebuild": {"imageRef": new_image, "name": "again"}})
    assert response.status_code == 202, response.get_data(True)
    assert response.get_json()["server"]["id"] == server_id
    shown = api.wait(server_id, "ACTIVE")
    assert shown["id"] == server_id and shown["name"] == "again"
    assert shown["image"]["id"] == new_image
    assert plane.drivers["host-a"].guests[server_id].image_id == new_image
    _succeeded(api, server_id, "rebuild", "compute_rebuild_instance")


def test_pause_unpause_suspend_resume(plane: Plane) -> None:
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot()
    steps = [("pause", "PAUSED", PowerState.PAUSED), ("unpause", "ACTIVE", PowerState.RUNNING),
             ("suspend", "SUSPENDED", PowerState.SUSPENDED),
             ("resume", "ACTIVE", PowerState.RUNNING)]  # fmt: skip
    for key, status, power in steps:
        assert api.action(server_id, {key: None}).status_code == 202
        shown = api.wait(server_id, status)
        assert shown["OS-EXT-STS:power_state"] == int(power)
        assert plane.drivers["host-a"].guests[server_id].power_state is power
        _succeeded(api, server_id, key, f"compute_{key}_instance")


def test_locked_server_refuses_stop_for_its_owner(plane: Plane) -> None:
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot()
    assert api.action(server_id, {"lock": None}).status_code == 202
    assert api.ok("GET", f"/servers/{server_id}", version="2.9")["server"]["locked"] is True
    refused = api.action(server_id, {"os-stop": None})
    assert refused.status_code == 409, refused.get_data(True)
    assert "locked" in refused.get_json()["conflictingRequest"]["message"]
    assert api.server(server_id)["status"] == "ACTIVE"
    assert api.action(server_id, {"unlock": None}).status_code == 202
    assert api.action(server_id, {"os-stop": None}).status_code == 202
    api.wait(server_id, "SHUTOFF")
    recorded = [a["action"] for a in api.actions(server_id)]
    assert "lock" in recorded and "unlock" in recorded and "stop" in recorded


def test_wrong_state_is_409_naming_the_state(plane: Plane) -> None:
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot()
    for body in ({"os-start": None}, {"resume": None}, {"unpause": None},
                 {"confirmResize": None}):  # fmt: skip
        refused = api.action(server_id, body)
        assert refused.status_code == 409, refused.get_data(True)
        message = refused.get_json()["conflictingRequest"]["message"]
        assert "vm_state active" in message, message
    assert api.server(server_id)["status"] == "ACTIVE"


def test_console_output_with_a_length(plane: Plane) -> None:
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot(name="console-vm")
    full = api.ok("POST", f"/servers/{server_id}/action", {"os-getConsoleOutput": {}})
    lines = full["output"].splitlines()
    assert len(lines) > 2 and lines[-1].endswith(" login:")
    tail = api.ok("POST", f"/servers/{server_id}/action",
                  {"os-getConsoleOutput": {"length": 2}})  # fmt: skip
    assert tail["output"].splitlines() == lines[-2:]


def test_create_image_uploads_the_snapshot(plane: Plane) -> None:
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot()
    response = api.action(server_id, {"createImage": {"name": "snap"}}, version="2.45")
    assert response.status_code == 202, response.get_data(True)
    image_id = response.get_json()["image_id"]
    api.wait(server_id, "ACTIVE")
    image = api.image(image_id)
    assert image["status"] == "active" and image["name"] == "snap"
    assert image["instance_uuid"] == server_id
    data = api.image_data(image_id)
    assert data == f"fake disk of {server_id} from {api.image_id}\n".encode()
    _succeeded(api, server_id, "createImage", "compute_snapshot_instance")


def test_a_failed_snapshot_leaves_no_image_behind(plane: Plane) -> None:
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot()
    plane.faults.fail("snapshot", instances=[server_id], times=1, reason="disk unreadable")
    response = api.action(server_id, {"createImage": {"name": "snap"}}, version="2.45")
    assert response.status_code == 202, response.get_data(True)
    image_id = response.get_json()["image_id"]
    api.wait(server_id, "ACTIVE")
    gone = requests.get(f"{api.image_url}/v2/images/{image_id}", timeout=30,
                        headers={"X-Auth-Token": api.token("admin")})  # fmt: skip
    assert gone.status_code == 404, gone.text


def test_power_state_reconcile_sees_a_guest_powered_off_behind_our_back(plane: Plane) -> None:
    plane.conf.set_override("sync_power_state_interval", 600)
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot()
    driver = plane.drivers["host-a"]
    guest = driver.guests[server_id]
    driver.power_off(plane.instance(server_id))  # the lifecycle event wakes the reconcile
    assert guest.power_state is PowerState.SHUTDOWN
    shown = api.wait(server_id, "SHUTOFF")
    assert shown["OS-EXT-STS:power_state"] == int(PowerState.SHUTDOWN)


def test_the_reconcile_leaves_a_guest_started_after_its_list_was_read(
    plane: Plane, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its pass reads the host's instances once: one stopped then, started since, is
    read again before its guest would be powered off (Nova refreshes it the same way)."""
    plane.conf.set_override("sync_power_state_interval", 600)
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot()
    assert api.action(server_id, {"os-stop": None}).status_code == 202
    api.wait(server_id, "SHUTOFF")
    manager = plane.computes["host-a"].manager
    stale = manager.conductor.instances_on_host(RequestContext(), "host-a")
    assert api.action(server_id, {"os-start": None}).status_code == 202
    api.wait(server_id, "ACTIVE")
    monkeypatch.setattr(manager.conductor, "instances_on_host", lambda *_: stale)
    reconcile_once(manager)
    assert plane.drivers["host-a"].guests[server_id].power_state is PowerState.RUNNING
    assert api.server(server_id)["status"] == "ACTIVE"


def _events(api: Api, server_id: str, action: str) -> list[tuple[str, str]]:
    return [(e["event"], e["result"]) for e in _last(api, server_id, action)["events"]]


def test_a_failed_action_lands_where_the_table_says_with_one_error_event(plane: Plane) -> None:
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot()
    plane.faults.fail("power_off", instances=[server_id], times=1, reason="button stuck")
    assert api.action(server_id, {"os-stop": None}).status_code == 202
    api.wait(server_id, "ACTIVE")  # a failed stop leaves the server as it was
    assert _events(api, server_id, "stop") == [("compute_stop_instance", "Error")]
    plane.faults.fail("reboot", instances=[server_id], times=1, reason="no power")
    assert api.action(server_id, {"reboot": {"type": "HARD"}}).status_code == 202
    failed = api.wait(server_id, "ERROR", user="admin")  # a failed hard reboot is ERROR
    assert "no power" in failed["fault"]["message"]
    assert _events(api, server_id, "reboot") == [("compute_reboot_instance", "Error")]


def test_a_failed_delete_is_error_with_its_claim_and_a_second_delete_ends_it(
    plane: Plane,
) -> None:
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot()
    plane.faults.fail("destroy", instances=[server_id], times=1, reason="guest will not die")
    assert api.call("DELETE", f"/servers/{server_id}").status_code == 204
    failed = api.wait(server_id, "ERROR", user="admin")
    assert "guest will not die" in failed["fault"]["message"]
    assert _events(api, server_id, "delete") == [("compute_terminate_instance", "Error")]
    assert plane.allocations(server_id) == {"host-a": {"VCPU": 1, "MEMORY_MB": 512, "DISK_GB": 1}}
    assert api.call("DELETE", f"/servers/{server_id}").status_code == 204
    api.wait_gone(server_id)
    assert plane.allocations(server_id) == {}
    assert server_id not in plane.drivers["host-a"].guests
