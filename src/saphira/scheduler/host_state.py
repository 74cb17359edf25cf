"""What the scheduler knows about one compute node, and one request.

HostState is the slow-changing part read from the cell databases (service,
zone, hypervisor); Candidate adds what placement said about it for this
request (capacity and usage per resource class, the allocation to claim).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from saphira.objects.request_spec import RequestSpec

UNMAPPED = "not mapped to a cell (run saphira-manage cell_v2 discover_hosts)"


@dataclasses.dataclass
class HostState:
    host: str
    node: str
    uuid: str  # the compute node's uuid, which is its resource provider's uuid
    cell_uuid: str
    mapped: bool = True
    availability_zone: str = "nova"
    service_disabled: bool = False
    disabled_reason: str | None = None
    forced_down: bool = False
    last_seen_up: dt.datetime | None = None
    service_up: bool = True
    has_service: bool = True
    hypervisor_type: str = "fake"
    hypervisor_version: int = 0
    arch: str = "x86_64"
    total: dict[str, int] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Candidate:
    """A host placement offered for this request."""

    state: HostState
    allocation_request: dict[str, Any]
    capacity: dict[str, int] = dataclasses.field(default_factory=dict)
    used: dict[str, int] = dataclasses.field(default_factory=dict)

    def free(self, rc: str) -> int:
        return self.capacity.get(rc, 0) - self.used.get(rc, 0)

    def fits(self, wanted: dict[str, int]) -> bool:
        return all(self.free(rc) >= amount for rc, amount in wanted.items())

    def consume(self, wanted: dict[str, int]) -> None:
        """Count a claim made in this batch, so the next instance sees it."""
        for rc, amount in wanted.items():
            self.used[rc] = self.used.get(rc, 0) + amount


@dataclasses.dataclass
class Request:
    """One instance's scheduling: the spec plus what earlier picks in its batch changed."""

    spec: RequestSpec
    group_hosts: list[str] = dataclasses.field(default_factory=list)

    @classmethod
    def of(cls, spec: RequestSpec) -> Request:
        return cls(spec, list(spec.instance_group_hosts))
