"""Cold migrate (``migrate``, 2.56 ``host``) and the live migration refusal through
the API, on fake hosts: the move never lands on the server's own host, the source
claim is the migration's while the server waits in VERIFY_RESIZE, confirm and
revert settle it as a resize does."""

from __future__ import annotations

from tests.functional.engine.conftest import Plane

TINY = {"VCPU": 1, "MEMORY_MB": 512, "DISK_GB": 1}
NONE = {"VCPU": 0, "MEMORY_MB": 0, "DISK_GB": 0}


def _booted_on_a(plane: Plane, *others: str) -> str:
    plane.add_host("host-a")
    server_id = plane.api.boot()
    for host in others:
        plane.add_host(host)
    return server_id


def _migrated(plane: Plane, server_id: str, body: object = None,
              version: str | None = None) -> dict[str, object]:  # fmt: skip
    api = plane.api
    response = api.action(server_id, {"migrate": body}, user="admin", version=version)
    assert response.status_code == 202, response.get_data(True)
    return api.wait(server_id, "VERIFY_RESIZE", user="admin")


def test_migrate_moves_to_another_host_holding_both_claims_then_confirm(plane: Plane) -> None:
    server_id = _booted_on_a(plane, "host-b")
    shown = _migrated(plane, server_id)
    assert shown["OS-EXT-SRV-ATTR:host"] == "host-b" and shown["flavor"]["id"] == "1"  # type: ignore[index]
    assert plane.allocations(server_id) == {"host-b": TINY}
    assert plane.usages("host-a") == TINY  # the migration consumer holds the source
    assert plane.usages("host-b") == TINY
    assert [a["action"] for a in plane.api.actions(server_id)][:1] == ["migrate"]
    assert plane.api.action(server_id, {"confirmResize": None}).status_code == 204
    plane.api.wait(server_id, "ACTIVE", user="admin")
    assert plane.usages("host-a") == NONE and plane.usages("host-b") == TINY
    assert server_id not in plane.drivers["host-a"].guests
    assert server_id in plane.drivers["host-b"].guests


def test_migrate_then_revert_goes_back_to_the_source(plane: Plane) -> None:
    server_id = _booted_on_a(plane, "host-b")
    _migrated(plane, server_id)
    assert plane.api.action(server_id, {"revertResize": None}).status_code == 202
    shown = plane.api.wait(server_id, "ACTIVE", user="admin")
    assert shown["OS-EXT-SRV-ATTR:host"] == "host-a"
    assert plane.allocations(server_id) == {"host-a": TINY}
    assert plane.usages("host-b") == NONE
    assert server_id not in plane.drivers["host-b"].guests


def test_migrate_with_no_other_host_is_no_valid_host_and_changes_nothing(plane: Plane) -> None:
    server_id = _booted_on_a(plane)
    response = plane.api.action(server_id, {"migrate": None}, user="admin")
    assert response.status_code == 400, response.get_data(True)
    assert "No valid host" in response.get_json()["badRequest"]["message"]
    shown = plane.api.wait(server_id, "ACTIVE", user="admin")
    assert shown["OS-EXT-SRV-ATTR:host"] == "host-a"
    assert plane.allocations(server_id) == {"host-a": TINY}


def test_migrate_to_a_named_host_at_2_56(plane: Plane) -> None:
    server_id = _booted_on_a(plane, "host-b", "host-c")
    shown = _migrated(plane, server_id, {"host": "host-c"}, version="2.56")
    assert shown["OS-EXT-SRV-ATTR:host"] == "host-c"
    assert plane.usages("host-b") == NONE


def test_migrate_refusals_change_nothing(plane: Plane) -> None:
    server_id = _booted_on_a(plane, "host-b")
    api = plane.api
    cases = [
        ({"host": "host-b"}, None, "admin", 400),  # host before 2.56
        ({"host": "host-a"}, "2.56", "admin", 400),  # its own host
        ({"host": "nowhere"}, "2.56", "admin", 400),
        ({"hots": "host-b"}, "2.56", "admin", 400),
        (None, None, "demo", 403),  # admin only
    ]
    for body, version, user, status in cases:
        response = api.action(server_id, {"migrate": body}, user=user, version=version)
        assert response.status_code == status, (body, response.get_data(True))
    assert api.actions(server_id)[0]["action"] == "create"
    assert plane.allocations(server_id) == {"host-a": TINY}
    assert plane.usages("host-b") == NONE


def test_resize_stays_off_its_host_when_same_host_is_not_allowed(plane: Plane) -> None:
    plane.conf.set_override("allow_resize_to_same_host", False)
    server_id = _booted_on_a(plane)
    response = plane.api.action(server_id, {"resize": {"flavorRef": "2"}}, user="admin")
    assert response.status_code == 400, response.get_data(True)
    assert "No valid host" in response.get_json()["badRequest"]["message"]
    assert plane.allocations(server_id) == {"host-a": TINY}


def test_live_migration_is_refused_with_the_reason(plane: Plane) -> None:
    server_id = _booted_on_a(plane, "host-b")
    api = plane.api
    body = {"os-migrateLive": {"host": None, "block_migration": "auto"}}
    response = api.action(server_id, body, user="admin", version="2.30")
    assert response.status_code == 400, response.get_data(True)
    assert "live migration is not supported" in response.get_json()["badRequest"]["message"]
    assert api.action(server_id, body, user="demo", version="2.30").status_code == 403
    bad = {"os-migrateLive": {"host": "host-b"}}  # block_migration is required
    assert api.action(server_id, bad, user="admin", version="2.30").status_code == 400
    assert api.action(server_id, {"os-stop": None}).status_code == 202
    api.wait(server_id, "SHUTOFF")
    assert api.action(server_id, body, user="admin", version="2.30").status_code == 409
    assert plane.allocations(server_id) == {"host-a": TINY}


def test_a_migrate_failing_on_the_source_is_error_there_with_nothing_leaked(
    plane: Plane,
) -> None:
    """The source powered off but could not hand its disks over: ERROR on the source
    with the fault, the destination's claim dropped and the source's given back."""
    server_id = _booted_on_a(plane, "host-b")
    plane.faults.fail("migrate_disk_and_power_off", hosts=["host-a"], reason="disk unreadable")
    response = plane.api.action(server_id, {"migrate": None}, user="admin")
    assert response.status_code == 202, response.get_data(True)
    failed = plane.api.wait(server_id, "ERROR", user="admin")
    assert "disk unreadable" in failed["fault"]["message"]
    assert failed["OS-EXT-SRV-ATTR:host"] == "host-a"
    assert plane.allocations(server_id) == {"host-a": TINY}
    assert plane.usages("host-b") == NONE
    assert server_id not in plane.drivers["host-b"].guests
