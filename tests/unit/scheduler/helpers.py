"""Typed host states, candidates and specs for the scheduler's unit tests."""

from __future__ import annotations

from typing import Any

from saphira.objects.flavor import Flavor
from saphira.objects.request_spec import RequestSpec
from saphira.scheduler.host_state import Candidate, HostState, Request


def host(name: str, **kw: Any) -> HostState:
    return HostState(host=name, node=name, uuid=f"uuid-{name}", cell_uuid="cell1", **kw)


def spec(**kw: Any) -> RequestSpec:
    flavor = Flavor(flavorid="1", name="m1.small", vcpus=1, memory_mb=512, root_gb=1)
    return RequestSpec(instance_uuid="i-1", project_id="p", user_id="u", flavor=flavor, **kw)


def request(**kw: Any) -> Request:
    return Request.of(spec(**kw))


def candidate(name: str, free: dict[str, int], **kw: Any) -> Candidate:
    state = host(name, **kw)
    capacity = {rc: 100_000 for rc in free}
    used = {rc: 100_000 - amount for rc, amount in free.items()}
    alloc = {"allocations": {state.uuid: {"resources": {"VCPU": 1}}}}
    return Candidate(state, alloc, capacity, used)
