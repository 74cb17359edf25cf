"""The placement client's requests and how it reads Placement's answers."""

from __future__ import annotations

import json

import pytest

from saphira import exception
from saphira.clients.fake import FakeTransport
from saphira.clients.placement import ConcurrentUpdate, PlacementClient

RP = "/placement/resource_providers"
CONFLICT = {"errors": [{"status": 409, "code": "placement.concurrent_update", "detail": "moved"}]}


def _client(wire: FakeTransport) -> PlacementClient:
    return PlacementClient("http://p.test/placement/", lambda: "svc", transport=wire)


def test_every_call_asks_for_the_microversion() -> None:
    wire = FakeTransport()
    wire.reply("GET", f"{RP}/rp1/usages", json={"usages": {"VCPU": 2}})
    assert _client(wire).usages("rp1") == {"VCPU": 2}
    headers = wire.sent[0].headers
    assert headers["OpenStack-API-Version"] == "placement 1.36"
    assert headers["X-Auth-Token"] == "svc"


def test_candidates_query_in_placement_form() -> None:
    wire = FakeTransport()
    wire.reply("GET", "/placement/allocation_candidates",
               json={"allocation_requests": [], "provider_summaries": {}})  # fmt: skip
    found = _client(wire).get_candidates(
        {"VCPU": 1, "MEMORY_MB": 512}, required=["HW_CPU_X86_AVX"], forbidden=["CUSTOM_X"],
        member_of=["agg2", "agg1"], in_tree="root", limit=5,
    )  # fmt: skip
    assert found.allocation_requests == []
    assert wire.sent[0].params == [
        ("resources", "MEMORY_MB:512,VCPU:1"),
        ("required", "HW_CPU_X86_AVX,!CUSTOM_X"),
        ("member_of", "in:agg1,agg2"),
        ("in_tree", "root"),
        ("limit", "5"),
    ]


def test_a_concurrent_update_is_its_own_conflict_and_the_inventory_is_retried() -> None:
    wire = FakeTransport()
    wire.reply("GET", f"{RP}/rp1/inventories", json={"resource_provider_generation": 3})
    wire.reply("GET", f"{RP}/rp1/inventories", json={"resource_provider_generation": 4})
    wire.reply("PUT", f"{RP}/rp1/inventories", status=409, json=CONFLICT)
    wire.reply("PUT", f"{RP}/rp1/inventories", json={"resource_provider_generation": 5})
    assert _client(wire).set_inventory("rp1", {"VCPU": {"total": 8}}) == 5
    puts = [json.dumps(r.json) for r in wire.sent if r.method == "PUT"]
    assert '"resource_provider_generation": 3' in puts[0]
    assert '"resource_provider_generation": 4' in puts[1]


def test_other_conflicts_and_errors_keep_placements_detail() -> None:
    wire = FakeTransport()
    body = {"errors": [{"status": 409, "code": "placement.undefined_code", "detail": "no room"}]}
    wire.reply("PUT", "/placement/allocations/c1", status=409, json=body)
    with pytest.raises(exception.Conflict, match=r"^placement: 409 no room$") as raised:
        _client(wire).put_allocations("c1", {"rp1": {"VCPU": 1}}, project_id="p",
                                      user_id="u", consumer_generation=None)  # fmt: skip
    assert not isinstance(raised.value, ConcurrentUpdate)
    assert wire.sent[0].json == {
        "allocations": {"rp1": {"resources": {"VCPU": 1}}},
        "project_id": "p", "user_id": "u", "consumer_generation": None,
    }  # fmt: skip


def test_a_provider_made_concurrently_is_taken_by_name() -> None:
    wire = FakeTransport()
    theirs = {"uuid": "rp9", "name": "h1", "generation": 0}
    wire.reply("GET", RP, json={"resource_providers": []})
    wire.reply("GET", RP, json={"resource_providers": [theirs]})
    wire.reply("POST", RP, status=409, json={"errors": [{"detail": "taken"}]})
    provider = _client(wire).ensure_provider("h1")
    assert provider.uuid == "rp9" and wire.sent[0].params == [("name", "h1")]


def test_released_allocations_and_missing_providers_are_not_errors() -> None:
    wire = FakeTransport()
    wire.reply("DELETE", "/placement/allocations/c1", status=404, json={"errors": []})
    wire.reply("GET", f"{RP}/nope", status=404, content=b"gone")
    assert _client(wire).delete_allocations("c1") is False
    assert _client(wire).get_provider("nope") is None
