"""Allocations, usages and allocation candidates."""

from __future__ import annotations

import uuid
from typing import Any

from tests.functional.placement.conftest import Placement

PROJECT, USER = "p1", "u1"


def _claim(rp: str, gen: int | None, **resources: int) -> dict[str, Any]:
    return {
        "allocations": {rp: {"resources": resources}},
        "project_id": PROJECT,
        "user_id": USER,
        "consumer_generation": gen,
    }


def _host(placement: Placement, name: str, vcpu: int = 4, ratio: float = 1.0) -> str:
    rp = str(placement.provider(name)["uuid"])
    placement.inventory(
        rp,
        VCPU={"total": vcpu, "allocation_ratio": ratio},
        MEMORY_MB={"total": 2048, "reserved": 512, "step_size": 256},
    )
    return rp


def test_capacity_is_enforced(placement: Placement) -> None:
    rp = _host(placement, "h", vcpu=2, ratio=2.0)  # capacity 4 VCPU, 1536 MB
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    placement.ok("PUT", f"/allocations/{first}", 204, json=_claim(rp, None, VCPU=3, MEMORY_MB=1024))
    over = placement.call("PUT", f"/allocations/{second}", json=_claim(rp, None, VCPU=2))
    assert over.status_code == 409 and "exceed the capacity" in over.get_data(as_text=True)
    step = placement.call("PUT", f"/allocations/{second}", json=_claim(rp, None, MEMORY_MB=100))
    assert step.status_code == 409
    placement.ok("PUT", f"/allocations/{second}", 204, json=_claim(rp, None, VCPU=1))
    usages = placement.ok("GET", f"/resource_providers/{rp}/usages")["usages"]
    assert usages == {"VCPU": 4, "MEMORY_MB": 1024}
    project = placement.ok("GET", f"/usages?project_id={PROJECT}")["usages"]
    assert project == {"VCPU": 4, "MEMORY_MB": 1024}
    inuse = placement.call(
        "PUT",
        f"/resource_providers/{rp}/inventories",
        json={"resource_provider_generation": 3, "inventories": {}},
    )
    assert inuse.get_json()["errors"][0]["code"] == "placement.inventory.inuse"


def test_consumer_generation(placement: Placement) -> None:
    rp = _host(placement, "h")
    consumer = str(uuid.uuid4())
    placement.ok("PUT", f"/allocations/{consumer}", 204, json=_claim(rp, None, VCPU=1))
    shown = placement.ok("GET", f"/allocations/{consumer}")
    assert shown["consumer_generation"] == 1 and shown["project_id"] == PROJECT
    assert shown["allocations"][rp]["resources"] == {"VCPU": 1}
    stale = placement.call("PUT", f"/allocations/{consumer}", json=_claim(rp, None, VCPU=2))
    assert stale.status_code == 409
    assert stale.get_json()["errors"][0]["code"] == "placement.concurrent_update"
    placement.ok("PUT", f"/allocations/{consumer}", 204, json=_claim(rp, 1, VCPU=2))
    by_rp = placement.ok("GET", f"/resource_providers/{rp}/allocations")
    assert by_rp["allocations"] == {consumer: {"resources": {"VCPU": 2}}}
    placement.ok("DELETE", f"/allocations/{consumer}", 204)
    assert placement.call("DELETE", f"/allocations/{consumer}").status_code == 404
    assert placement.ok("GET", f"/allocations/{consumer}") == {"allocations": {}}


def test_post_allocations_is_all_or_nothing(placement: Placement) -> None:
    rp = _host(placement, "h", vcpu=2)
    a, b = str(uuid.uuid4()), str(uuid.uuid4())
    body = {a: _claim(rp, None, VCPU=2), b: _claim(rp, None, VCPU=1)}
    assert placement.call("POST", "/allocations", json=body).status_code == 409
    assert placement.ok("GET", f"/resource_providers/{rp}/usages")["usages"]["VCPU"] == 0
    body[a] = _claim(rp, None, VCPU=1)
    placement.ok("POST", "/allocations", 204, json=body)
    assert placement.ok("GET", f"/resource_providers/{rp}/usages")["usages"]["VCPU"] == 2


def test_old_list_format(placement: Placement) -> None:
    rp = _host(placement, "h")
    consumer = str(uuid.uuid4())
    body = {
        "allocations": [{"resource_provider": {"uuid": rp}, "resources": {"VCPU": 1}}],
        "project_id": PROJECT,
        "user_id": USER,
    }
    placement.ok("PUT", f"/allocations/{consumer}", 204, version="placement 1.8", json=body)
    shown = placement.ok("GET", f"/allocations/{consumer}", version="placement 1.8")
    assert shown == {"allocations": {rp: {"generation": 2, "resources": {"VCPU": 1}}}}


def test_candidates(placement: Placement) -> None:
    small = _host(placement, "small", vcpu=1)
    big = _host(placement, "big", vcpu=8)
    placement.ok(
        "PUT",
        f"/resource_providers/{big}/traits",
        json={"traits": ["HW_CPU_X86_AVX2"], "resource_provider_generation": 1},
    )
    found = placement.ok("GET", "/allocation_candidates?resources=VCPU:2,MEMORY_MB:512")
    requests = found["allocation_requests"]
    assert requests == [
        {
            "allocations": {big: {"resources": {"VCPU": 2, "MEMORY_MB": 512}}},
            "mappings": {"": [big]},
        }
    ]
    summary = found["provider_summaries"][big]
    assert summary["resources"]["VCPU"] == {"capacity": 8, "used": 0}
    assert summary["traits"] == ["HW_CPU_X86_AVX2"]
    assert summary["root_provider_uuid"] == big
    both = placement.ok("GET", "/allocation_candidates?resources=VCPU:1&limit=1")
    assert len(both["allocation_requests"]) == 1
    avx = placement.ok("GET", "/allocation_candidates?resources=VCPU:1&required=HW_CPU_X86_AVX2")
    assert [list(r["allocations"]) for r in avx["allocation_requests"]] == [[big]]
    not_avx = placement.ok(
        "GET", "/allocation_candidates?resources=VCPU:1&required=!HW_CPU_X86_AVX2"
    )
    assert [list(r["allocations"]) for r in not_avx["allocation_requests"]] == [[small]]
    old = placement.ok("GET", "/allocation_candidates?resources=VCPU:1", version="placement 1.10")
    assert old["allocation_requests"][0]["allocations"][0]["resource_provider"]["uuid"] == small


def test_candidates_span_a_tree(placement: Placement) -> None:
    root = placement.provider("host")["uuid"]
    numa = placement.provider("numa", parent_provider_uuid=root)["uuid"]
    placement.inventory(root, DISK_GB={"total": 100})
    placement.inventory(numa, VCPU={"total": 4})
    found = placement.ok("GET", "/allocation_candidates?resources=VCPU:1,DISK_GB:10")
    assert found["allocation_requests"][0]["allocations"] == {
        numa: {"resources": {"VCPU": 1}},
        root: {"resources": {"DISK_GB": 10}},
    }
    assert found["provider_summaries"][numa]["parent_provider_uuid"] == root
    grouped = placement.ok("GET", "/allocation_candidates?resources1=VCPU:1&resources=DISK_GB:5")
    assert grouped["allocation_requests"][0]["mappings"] == {"1": [numa], "": [root]}
