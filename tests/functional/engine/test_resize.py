"""Resize through the API: the claim moves to the new flavor's size on the
target; confirm releases the source, revert gives the source back."""

from __future__ import annotations

from tests.functional.engine.conftest import Plane

TINY = {"VCPU": 1, "MEMORY_MB": 512, "DISK_GB": 1}
SMALL = {"VCPU": 2, "MEMORY_MB": 1024, "DISK_GB": 2}


def _resized(plane: Plane) -> tuple[str, str, str]:
    """A server resized to m1.small, waiting in VERIFY_RESIZE: (id, source, target)."""
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot()
    source = api.server(server_id, "admin")["OS-EXT-SRV-ATTR:host"]
    plane.add_host("host-b")
    response = api.action(server_id, {"resize": {"flavorRef": "2"}})
    assert response.status_code == 202, response.get_data(True)
    shown = api.wait(server_id, "VERIFY_RESIZE", user="admin")
    target = shown["OS-EXT-SRV-ATTR:host"]
    assert (source, target) == ("host-a", "host-b")
    assert shown["flavor"]["id"] == "2"
    assert plane.allocations(server_id) == {target: SMALL}
    return server_id, source, target


def test_resize_then_confirm(plane: Plane) -> None:
    api = plane.api
    server_id, source, target = _resized(plane)
    assert api.action(server_id, {"confirmResize": None}).status_code == 204
    shown = api.wait(server_id, "ACTIVE", user="admin")
    assert shown["flavor"]["id"] == "2" and shown["OS-EXT-SRV-ATTR:host"] == target
    assert plane.allocations(server_id) == {target: SMALL}
    assert plane.usages(source) == {"VCPU": 0, "MEMORY_MB": 0, "DISK_GB": 0}
    assert server_id not in plane.drivers[source].guests
    assert plane.drivers[target].guests[server_id].flavor.flavorid == "2"
    assert _events(plane, server_id, "resize") == [
        ("compute_prep_resize", "Success"), ("compute_resize_instance", "Success"),
        ("compute_finish_resize", "Success")]  # fmt: skip
    assert _events(plane, server_id, "confirmResize") == [("compute_confirm_resize", "Success")]


def test_resize_then_revert(plane: Plane) -> None:
    api = plane.api
    server_id, source, target = _resized(plane)
    assert api.action(server_id, {"revertResize": None}).status_code == 202
    shown = api.wait(server_id, "ACTIVE", user="admin")
    assert shown["flavor"]["id"] == "1" and shown["OS-EXT-SRV-ATTR:host"] == source
    assert plane.allocations(server_id) == {source: TINY}
    assert plane.usages(target) == {"VCPU": 0, "MEMORY_MB": 0, "DISK_GB": 0}
    assert server_id not in plane.drivers[target].guests
    assert plane.drivers[source].guests[server_id].flavor.flavorid == "1"
    assert _events(plane, server_id, "revertResize") == [
        ("compute_revert_resize", "Success"),
        ("compute_finish_revert_resize", "Success"),
    ]


def test_a_failed_resize_gives_the_source_claim_back(plane: Plane) -> None:
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot()
    plane.add_host("host-b")
    plane.faults.fail("finish_migration", hosts=["host-b"], reason="target disk full")
    assert api.action(server_id, {"resize": {"flavorRef": "2"}}).status_code == 202
    failed = api.wait(server_id, "ERROR", user="admin")
    assert "target disk full" in failed["fault"]["message"]
    assert plane.allocations(server_id) == {"host-a": TINY}
    assert plane.usages("host-b") == {"VCPU": 0, "MEMORY_MB": 0, "DISK_GB": 0}
    assert ("compute_finish_resize", "Error") in _events(plane, server_id, "resize")


def test_a_resize_failing_after_the_target_made_the_guest_leaves_nothing_there(
    plane: Plane,
) -> None:
    """The target's guest and disks are undone with its claim: ERROR on the source."""
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot()
    plane.add_host("host-b")
    plane.faults.fail("get_info", hosts=["host-b"], instances=[server_id], times=1,
                      reason="hypervisor lost it")  # fmt: skip
    assert api.action(server_id, {"resize": {"flavorRef": "2"}}).status_code == 202
    failed = api.wait(server_id, "ERROR", user="admin")
    assert "hypervisor lost it" in failed["fault"]["message"]
    assert failed["OS-EXT-SRV-ATTR:host"] == "host-a" and failed["flavor"]["id"] == "1"
    assert server_id not in plane.drivers["host-b"].guests
    assert server_id in plane.drivers["host-a"].guests
    assert plane.allocations(server_id) == {"host-a": TINY}
    assert plane.usages("host-b") == {"VCPU": 0, "MEMORY_MB": 0, "DISK_GB": 0}
    assert ("compute_finish_resize", "Error") in _events(plane, server_id, "resize")


def _events(plane: Plane, server_id: str, action: str) -> list[tuple[str, str]]:
    api = plane.api
    entry = next(a for a in api.actions(server_id) if a["action"] == action)
    detail = api.action_detail(server_id, entry["request_id"])
    return [(e["event"], e["result"]) for e in detail["events"]]
