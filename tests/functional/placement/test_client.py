"""The typed client against the served API (cheroot), and concurrent claims."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from saphira import exception
from saphira.clients.placement import ConcurrentUpdate, PlacementClient
from tests.functional.identity.server import serve
from tests.functional.placement.conftest import Placement


@pytest.fixture
def client(placement: Placement) -> Iterator[PlacementClient]:
    with serve(placement.app) as url:
        yield PlacementClient(url, lambda: placement.token)


def test_provider_inventory_and_claims(client: PlacementClient) -> None:
    rp = client.ensure_provider("compute1")
    assert client.ensure_provider("compute1") == rp
    generation = client.set_inventory(rp.uuid, {"VCPU": {"total": 2}, "MEMORY_MB": {"total": 512}})
    assert generation == 1
    assert client.set_traits(rp.uuid, ["COMPUTE_STATUS_DISABLED"]) == 2
    found = client.get_candidates({"VCPU": 1, "MEMORY_MB": 256}, forbidden=["HW_CPU_X86_AVX2"])
    assert [list(r["allocations"]) for r in found.allocation_requests] == [[rp.uuid]]
    consumer = str(uuid.uuid4())
    client.claim(consumer, found.allocation_requests[0], project_id="p", user_id="u")
    assert client.usages(rp.uuid) == {"VCPU": 1, "MEMORY_MB": 256}
    with pytest.raises(ConcurrentUpdate):
        client.put_allocations(
            consumer,
            {rp.uuid: {"VCPU": 2}},
            project_id="p",
            user_id="u",
            consumer_generation=None,
        )
    with pytest.raises(exception.Conflict):
        client.claim(
            str(uuid.uuid4()),
            {"allocations": {rp.uuid: {"resources": {"VCPU": 2}}}},
            project_id="p",
            user_id="u",
        )
    assert client.delete_allocations(consumer)
    assert not client.delete_allocations(consumer)
    assert client.get_provider(str(uuid.uuid4())) is None


def test_concurrent_claims_never_oversubscribe(client: PlacementClient) -> None:
    rp = client.ensure_provider("busy")
    client.set_inventory(rp.uuid, {"VCPU": {"total": 5}})

    def claim(_: int) -> bool:
        try:
            client.put_allocations(
                str(uuid.uuid4()),
                {rp.uuid: {"VCPU": 1}},
                project_id="p",
                user_id="u",
                consumer_generation=None,
            )
        except exception.Conflict:
            return False
        return True

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(claim, range(20)))
    assert sum(results) == 5
    assert client.usages(rp.uuid) == {"VCPU": 5}
