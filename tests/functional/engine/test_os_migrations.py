"""os-migrations: each move's row, its type and status at each step, as Nova
shows them (admin only)."""

from __future__ import annotations

from typing import Any

from tests.functional.engine.conftest import Plane


def _listed(plane: Plane, version: str = "2.80", query: str = "") -> list[dict[str, Any]]:
    body = plane.api.ok("GET", f"/os-migrations{query}", user="admin", version=version)
    return list(body["migrations"])


def test_a_migration_then_a_resize_are_listed_with_their_steps(plane: Plane) -> None:
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot()
    plane.add_host("host-b")
    assert api.action(server_id, {"migrate": None}, user="admin").status_code == 202
    api.wait(server_id, "VERIFY_RESIZE", user="admin")
    (moved,) = _listed(plane)
    assert (moved["migration_type"], moved["status"]) == ("migration", "finished")
    assert (moved["source_compute"], moved["dest_compute"]) == ("host-a", "host-b")
    assert moved["instance_uuid"] == server_id and moved["project_id"] == api.project_id()
    assert moved["old_instance_type_id"] == moved["new_instance_type_id"] is not None
    assert api.action(server_id, {"revertResize": None}).status_code == 202
    api.wait(server_id, "ACTIVE", user="admin")
    assert _listed(plane)[0]["status"] == "reverted"
    assert api.action(server_id, {"resize": {"flavorRef": "2"}}).status_code == 202
    api.wait(server_id, "VERIFY_RESIZE", user="admin")
    assert api.action(server_id, {"confirmResize": None}).status_code == 204
    api.wait(server_id, "ACTIVE", user="admin")
    newest, oldest = _listed(plane)
    assert (newest["migration_type"], newest["status"]) == ("resize", "confirmed")
    assert newest["old_instance_type_id"] != newest["new_instance_type_id"]
    assert oldest["uuid"] == moved["uuid"]
    assert [m["uuid"] for m in _listed(plane, query="?migration_type=resize")] == [newest["uuid"]]
    assert _listed(plane, query="?instance_uuid=nothing") == []
    old = _listed(plane, version="2.1")[0]
    assert "migration_type" not in old and "uuid" not in old
    assert api.call("GET", "/os-migrations", user="demo").status_code == 403
    page = plane.api.ok("GET", "/os-migrations?limit=1", user="admin", version="2.59")
    assert [m["uuid"] for m in page["migrations"]] == [newest["uuid"]]
    assert f"marker={newest['uuid']}" in page["migrations_links"][0]["href"]
    rest = _listed(plane, version="2.59", query=f"?marker={newest['uuid']}")
    assert [m["uuid"] for m in rest] == [oldest["uuid"]]
    bad = api.call("GET", "/os-migrations?marker=nope", user="admin", version="2.59")
    assert bad.status_code == 400


def test_a_failed_migration_and_an_evacuation_say_so(plane: Plane) -> None:
    plane.add_host("host-a")
    api = plane.api
    server_id = api.boot()
    plane.add_host("host-b")
    plane.faults.fail("finish_migration", hosts=["host-b"], times=1, reason="disk full")
    assert api.action(server_id, {"migrate": None}, user="admin").status_code == 202
    api.wait(server_id, "ERROR", user="admin")
    assert _listed(plane)[0]["status"] == "error"
    body = {"host": "host-a", "binary": "nova-compute", "forced_down": True}
    api.ok("PUT", "/os-services/force-down", body, user="admin", version="2.11")
    assert api.action(server_id, {"evacuate": {}}, user="admin", version="2.14").status_code == 200
    api.wait(server_id, "ACTIVE", user="admin")
    evacuated = _listed(plane)[0]
    assert (evacuated["migration_type"], evacuated["status"]) == ("evacuation", "done")
    assert evacuated["dest_compute"] == "host-b"
