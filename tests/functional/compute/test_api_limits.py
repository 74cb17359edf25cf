"""No request is slower because a caller asked for much: a huge max_count is
answered from the quota's headroom, computed once; a backtracking name
pattern is matched in linear time. Each runs beside another request, which
must complete too (the timeouts only detect a hang)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session

from saphira.db.api.quota import QuotaEngine, Scope
from saphira.db.transactions import Database
from tests.functional.compute.servers_harness import IMAGE, Harness, make
from tests.wsgi import Client, JsonResponse

HANG = 60.0  # seconds: far beyond any honest answer, only a hang reaches it
MOST_CLAIMS = 2


class CountingQuota(QuotaEngine):
    """The real engine, counting how often a claim is entered (and stopping a runaway loop)."""

    def __init__(self, defaults: Mapping[str, int]) -> None:
        super().__init__(defaults)
        self.claims = 0

    def _count(self) -> None:
        self.claims += 1
        if self.claims > 50:
            raise RuntimeError(f"the quota claim was entered {self.claims} times")

    @contextmanager
    def reserve(self, db: Database, scope: Scope, deltas: Mapping[str, int]) -> Iterator[Session]:
        self._count()
        with super().reserve(db, scope, deltas) as session:
            yield session

    @contextmanager
    def reserve_up_to(
        self, db: Database, scope: Scope, each: Mapping[str, int], least: int, most: int
    ) -> Iterator[tuple[Session, int]]:
        self._count()
        with super().reserve_up_to(db, scope, each, least, most) as granted:
            yield granted


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    made = make(tmp_path)
    made.state.quota = CountingQuota(made.state.quota.defaults)
    return made


def _create(client: Client, name: str = "vm", **extra: Any) -> JsonResponse:
    server = {"name": name, "imageRef": IMAGE, "flavorRef": "1", **extra}
    return client.post("/v2.1/servers", json={"server": server})


def _beside(slow: Callable[[], JsonResponse], other: Callable[[], JsonResponse]) -> tuple[
        JsonResponse, JsonResponse]:  # fmt: skip
    """Run both at once; both must answer before HANG (a hung one is not waited for)."""
    pool = ThreadPoolExecutor(max_workers=2)
    try:
        first, second = pool.submit(slow), pool.submit(other)
        return first.result(timeout=HANG), second.result(timeout=HANG)
    finally:
        pool.shutdown(wait=False)


def test_max_count_of_two_to_the_31_gets_as_many_as_the_quota_allows(harness: Harness) -> None:
    member, neighbour = harness.client(), harness.client(project="p2", user="u2")
    created, flavors = _beside(
        lambda: _create(member, min_count=1, max_count=2147483647),
        lambda: neighbour.get("/v2.1/flavors"),
    )
    assert created.status_code == 202, created.data
    assert flavors.status_code == 200, flavors.data
    assert len(harness.recorder.builds[0]) == 10  # the default quota of instances
    assert isinstance(harness.state.quota, CountingQuota)
    assert harness.state.quota.claims <= MOST_CLAIMS
    assert len(member.get("/v2.1/servers").json["servers"]) == 10


def test_when_min_count_does_not_fit_the_answer_is_novas_403(harness: Harness) -> None:
    client = harness.client()
    assert _create(client, min_count=4).status_code == 202
    over = _create(client, min_count=7, max_count=2147483647)
    assert over.status_code == 403, over.data
    assert over.json["forbidden"]["message"] == (
        "Quota exceeded for instances: Requested 7-100, but already used 4 of 10 instances"
    )
    assert len(client.get("/v2.1/servers").json["servers"]) == 4  # nothing half-made


def test_the_per_request_cap_bounds_even_an_unlimited_quota(harness: Harness) -> None:
    harness.conf.set_override("multi_create_max_count", 3, group="api")
    admin = harness.client(admin=True)
    unlimited = {"instances": -1, "cores": -1, "ram": -1}
    assert admin.put("/v2.1/os-quota-sets/p1", json={"quota_set": unlimited}).status_code == 200
    client = harness.client()
    assert _create(client, max_count=1000).status_code == 202
    assert len(harness.recorder.builds[0]) == 3
    refused = _create(client, min_count=4, max_count=4)
    assert refused.status_code == 400
    assert "more than the 3 servers one request may create" in refused.json["badRequest"]["message"]


def test_a_backtracking_name_filter_is_answered_beside_another_request(harness: Harness) -> None:
    member, neighbour = harness.client(), harness.client(project="p2", user="u2")
    target = _create(member, name="a" * 40 + "!").json["server"]["id"]
    _create(member, name="aaaa")
    listed, flavors = _beside(
        lambda: member.get("/v2.1/servers?name=(a|aa)*$"),
        lambda: neighbour.get("/v2.1/flavors"),
    )
    assert flavors.status_code == 200, flavors.data
    assert listed.status_code == 200, listed.data
    names = sorted(s["name"] for s in listed.json["servers"])
    assert names == ["aaaa", "a" * 40 + "!"]  # re.search: the empty match before the end
    exact = member.get("/v2.1/servers?name=^(a|aa)*!$").json["servers"]
    assert [s["id"] for s in exact] == [target]


@pytest.mark.parametrize("pattern", [r"(a)\1", "(?=a)", "a{1001}", "["])
def test_a_pattern_re2_cannot_run_is_a_400(harness: Harness, pattern: str) -> None:
    response = harness.client().get("/v2.1/servers", query_string={"name": pattern})
    assert response.status_code == 400, response.data
    assert response.json["badRequest"]["message"].startswith(f"Invalid name filter: {pattern} (")


def test_a_server_groups_member_quota_bounds_max_count_too(harness: Harness) -> None:
    admin = harness.client(admin=True)
    members = {"quota_set": {"server_group_members": 3}}
    assert admin.put("/v2.1/os-quota-sets/p1", json=members).status_code == 200
    client = harness.client()
    made = client.post("/v2.1/os-server-groups",
                       json={"server_group": {"name": "g", "policies": ["affinity"]}})  # fmt: skip
    group = made.json["server_group"]["id"]
    hints = {"os:scheduler_hints": {"group": group}}
    server = {"name": "vm", "imageRef": IMAGE, "flavorRef": "1", "max_count": 2147483647}
    assert client.post("/v2.1/servers", json={"server": server, **hints}).status_code == 202
    assert len(harness.recorder.builds[0]) == 3
    shown = client.get(f"/v2.1/os-server-groups/{group}").json["server_group"]
    assert len(shown["members"]) == 3
    full = client.post("/v2.1/servers", json={"server": {**server, "max_count": 1}, **hints})
    assert full.status_code == 403, full.data
    assert "server_group_members" in full.json["forbidden"]["message"]


@pytest.mark.parametrize("query", ["limit=17516862089062064128", "offset=10702783129015370383"])
def test_a_server_group_page_beyond_any_integer_is_an_answer(harness: Harness, query: str) -> None:
    """Found by the fuzzer: a limit or offset past 64 bits reached the database (500)."""
    client = harness.client()
    made = client.post("/v2.1/os-server-groups",
                       json={"server_group": {"name": "g", "policies": ["affinity"]}})  # fmt: skip
    assert made.status_code == 200, made.data
    listed = client.get(f"/v2.1/os-server-groups?{query}")
    assert listed.status_code == 200, listed.data
    expected = 1 if query.startswith("limit") else 0
    assert len(listed.json["server_groups"]) == expected
