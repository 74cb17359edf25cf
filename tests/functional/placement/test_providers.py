"""Providers, inventories, traits, aggregates and resource classes."""

from __future__ import annotations

import uuid

from tests.functional.placement.conftest import Placement

VCPU = {"total": 8, "allocation_ratio": 2.0}


def test_provider_crud_and_tree(placement: Placement) -> None:
    root = placement.provider("host1")
    assert root["generation"] == 0
    assert root["root_provider_uuid"] == root["uuid"] and root["parent_provider_uuid"] is None
    child = placement.provider("host1_numa0", parent_provider_uuid=root["uuid"])
    assert child["root_provider_uuid"] == root["uuid"]
    assert child["parent_provider_uuid"] == root["uuid"]
    tree = placement.ok("GET", f"/resource_providers?in_tree={child['uuid']}")
    assert {p["uuid"] for p in tree["resource_providers"]} == {root["uuid"], child["uuid"]}
    by_name = placement.ok("GET", "/resource_providers?name=host1")["resource_providers"]
    assert [p["uuid"] for p in by_name] == [root["uuid"]]
    dup = placement.call("POST", "/resource_providers", json={"name": "host1"})
    assert dup.status_code == 409
    assert dup.get_json()["errors"][0]["code"] == "placement.duplicate_name"
    parent_delete = placement.call("DELETE", f"/resource_providers/{root['uuid']}")
    assert parent_delete.status_code == 409
    renamed = placement.ok("PUT", f"/resource_providers/{child['uuid']}", json={"name": "numa0"})
    assert renamed["name"] == "numa0"
    placement.ok("DELETE", f"/resource_providers/{child['uuid']}", 204)
    placement.ok("DELETE", f"/resource_providers/{root['uuid']}", 204)
    assert placement.call("GET", f"/resource_providers/{root['uuid']}").status_code == 404


def test_create_before_1_20_is_201_without_body(placement: Placement) -> None:
    given = str(uuid.uuid4())
    response = placement.call(
        "POST",
        "/resource_providers",
        version="placement 1.19",
        json={"name": "old", "uuid": given},
    )
    assert response.status_code == 201
    assert response.headers["Location"].endswith(f"/resource_providers/{given}")
    assert not response.get_data()


def test_inventory_generation_conflict(placement: Placement) -> None:
    rp = placement.provider("host")
    body = placement.inventory(rp["uuid"], VCPU=VCPU, MEMORY_MB={"total": 4096, "reserved": 512})
    assert body["resource_provider_generation"] == 1
    assert body["inventories"]["VCPU"] == {
        "total": 8,
        "reserved": 0,
        "min_unit": 1,
        "max_unit": 2147483647,
        "step_size": 1,
        "allocation_ratio": 2.0,
    }
    stale = {"resource_provider_generation": 0, "inventories": {"VCPU": {"total": 4}}}
    response = placement.call("PUT", f"/resource_providers/{rp['uuid']}/inventories", json=stale)
    assert response.status_code == 409
    assert response.get_json()["errors"][0]["code"] == "placement.concurrent_update"
    one = placement.ok(
        "PUT",
        f"/resource_providers/{rp['uuid']}/inventories/VCPU",
        json={"resource_provider_generation": 1, "total": 16},
    )
    assert one["total"] == 16 and one["resource_provider_generation"] == 2
    placement.ok("DELETE", f"/resource_providers/{rp['uuid']}/inventories/MEMORY_MB", 204)
    left = placement.ok("GET", f"/resource_providers/{rp['uuid']}/inventories")
    assert set(left["inventories"]) == {"VCPU"}


def test_bad_inventory_is_400(placement: Placement) -> None:
    rp = placement.provider("host")
    for inventory in ({"total": 0}, {"total": 4, "reserved": 5}, {"total": 4, "bogus": 1}):
        body = {"resource_provider_generation": 0, "inventories": {"VCPU": inventory}}
        response = placement.call("PUT", f"/resource_providers/{rp['uuid']}/inventories", json=body)
        assert response.status_code == 400, inventory
    unknown = {"resource_provider_generation": 0, "inventories": {"CUSTOM_NOPE": {"total": 1}}}
    response = placement.call("PUT", f"/resource_providers/{rp['uuid']}/inventories", json=unknown)
    assert response.status_code == 400


def test_custom_resource_classes(placement: Placement) -> None:
    names = [r["name"] for r in placement.ok("GET", "/resource_classes")["resource_classes"]]
    assert {"VCPU", "MEMORY_MB", "DISK_GB"} <= set(names)
    placement.ok("PUT", "/resource_classes/CUSTOM_GPU", 201)
    placement.ok("PUT", "/resource_classes/CUSTOM_GPU", 204)
    assert placement.call("POST", "/resource_classes", json={"name": "BAD"}).status_code == 400
    assert placement.call("DELETE", "/resource_classes/VCPU").status_code == 400
    rp = placement.provider("host")
    placement.inventory(rp["uuid"], CUSTOM_GPU={"total": 2})
    assert placement.call("DELETE", "/resource_classes/CUSTOM_GPU").status_code == 409


def test_traits(placement: Placement) -> None:
    found = placement.ok("GET", "/traits?name=in:HW_CPU_X86_AVX2,COMPUTE_STATUS_DISABLED")
    assert found["traits"] == ["COMPUTE_STATUS_DISABLED", "HW_CPU_X86_AVX2"]
    placement.ok("PUT", "/traits/CUSTOM_FAST", 201)
    assert placement.call("PUT", "/traits/NOT_CUSTOM").status_code == 400
    rp = placement.provider("host")
    body = {"traits": ["HW_CPU_X86_AVX2", "CUSTOM_FAST"], "resource_provider_generation": 0}
    got = placement.ok("PUT", f"/resource_providers/{rp['uuid']}/traits", json=body)
    assert got == {"traits": ["CUSTOM_FAST", "HW_CPU_X86_AVX2"], "resource_provider_generation": 1}
    stale = placement.call("PUT", f"/resource_providers/{rp['uuid']}/traits", json=body)
    assert stale.status_code == 409
    assert placement.call("DELETE", "/traits/CUSTOM_FAST").status_code == 409
    required = placement.ok("GET", "/resource_providers?required=CUSTOM_FAST")
    assert [p["uuid"] for p in required["resource_providers"]] == [rp["uuid"]]
    forbidden = placement.ok("GET", "/resource_providers?required=!CUSTOM_FAST")
    assert forbidden["resource_providers"] == []
    associated = placement.ok("GET", "/traits?associated=true")["traits"]
    assert associated == ["CUSTOM_FAST", "HW_CPU_X86_AVX2"]


def test_aggregates_and_member_of(placement: Placement) -> None:
    rp = placement.provider("host")
    other = placement.provider("other")
    agg = str(uuid.uuid4())
    body = {"aggregates": [agg], "resource_provider_generation": 0}
    got = placement.ok("PUT", f"/resource_providers/{rp['uuid']}/aggregates", json=body)
    assert got == {"aggregates": [agg], "resource_provider_generation": 1}
    old = placement.ok(
        "PUT",
        f"/resource_providers/{other['uuid']}/aggregates",
        version="placement 1.1",
        json=[],
    )
    assert old == {"aggregates": []}
    members = placement.ok("GET", f"/resource_providers?member_of=in:{agg}")
    assert [p["uuid"] for p in members["resource_providers"]] == [rp["uuid"]]
