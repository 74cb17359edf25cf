#!/usr/bin/env python3
"""Scheduler decision latency with N simulated hosts (default 1,000).

Writes N compute nodes and services into a SQLite cell database (with API
database host mappings), and answers placement from memory with what
placement would return (every host a candidate, usages in the provider
summaries), so the figure is the scheduler's own work: host states (cached,
refreshed incrementally every [scheduler] host_state_ttl), matching the
candidates, filters, weighers, the claim and the alternates, excluding
placement's HTTP round trip. Prints p50/p99/max; asserts nothing.

    .venv/bin/python bench/scheduler.py [--hosts N] [--decisions D] [--ttl S]
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from saphira.clients.placement import Candidates
from saphira.conf import make_conf
from saphira.context import RequestContext
from saphira.db import cells
from saphira.db.api import connect
from saphira.db.api.models import CellMapping, HostMapping
from saphira.db.cell.models import ComputeNode, Service
from saphira.devtools.benchreport.figures import Figure, emit
from saphira.objects.flavor import Flavor
from saphira.objects.request_spec import RequestSpec
from saphira.scheduler.manager import SchedulerManager


class MemoryPlacement:
    """Placement's answers without HTTP: one candidate per host, claims counted."""

    def __init__(self, nodes: dict[str, dict[str, int]]) -> None:
        self.capacity = nodes
        self.used: dict[str, dict[str, int]] = {rp: {} for rp in nodes}
        self.spent = 0.0  # seconds spent standing in for placement, subtracted from decisions

    def get_candidates(self, resources: dict[str, int], *, limit: int | None = None) -> Candidates:
        begin = time.perf_counter()
        found = self._candidates(resources, limit)
        self.spent += time.perf_counter() - begin
        return found

    def _candidates(self, resources: dict[str, int], limit: int | None) -> Candidates:
        requests, summaries = [], {}
        for rp, capacity in self.capacity.items():
            used = self.used[rp]
            if all(used.get(rc, 0) + n <= capacity[rc] for rc, n in resources.items()):
                requests.append({"allocations": {rp: {"resources": dict(resources)}}})
                summaries[rp] = {
                    "resources": {
                        rc: {"capacity": capacity[rc], "used": used.get(rc, 0)} for rc in capacity
                    }
                }
        return Candidates(requests[:limit], summaries)

    def claim(self, consumer: str, allocation_request: dict[str, Any], **_: Any) -> None:
        for rp, value in allocation_request["allocations"].items():
            for rc, amount in value["resources"].items():
                self.used[rp][rc] = self.used[rp].get(rc, 0) + amount

    def delete_allocations(self, consumer: str) -> bool:
        return False

    def get_inventories(self, provider_uuid: str) -> dict[str, dict[str, Any]]:
        return {rc: {"total": n} for rc, n in self.capacity[provider_uuid].items()}

    def usages(self, provider_uuid: str) -> dict[str, int]:
        return dict(self.used[provider_uuid])


def build(state: Path, hosts: int, ttl: float) -> tuple[Any, dict[str, dict[str, int]]]:
    conf = make_conf()
    conf([])
    conf.set_override("state_path", str(state))
    conf.set_override("transport_url", "inproc:///bench")
    conf.set_override("host_state_ttl", ttl, group="scheduler")
    cells.api_db_sync(conf)
    cells.map_cell0(conf)
    cells.db_sync(conf)
    cell, _ = cells.create_cell(conf, name="cell1", database_connection=cells.cell_url(conf))
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None) + dt.timedelta(days=1)
    nodes: dict[str, dict[str, int]] = {}
    with connect.session_for("cell", cell.url, conf) as session:
        for index in range(hosts):
            name = f"compute{index:04d}"
            service = Service(
                uuid=str(uuid.uuid4()), host=name, binary=cells.COMPUTE_BINARY, last_seen_up=now
            )
            session.add(service)
            session.flush()
            node = str(uuid.uuid4())
            memory = 16384 * (1 + index % 4)
            session.add(
                ComputeNode(
                    uuid=node,
                    service_id=service.id,
                    host=name,
                    hypervisor_hostname=name,
                    hypervisor_type="fake",
                    vcpus=32,
                    memory_mb=memory,
                    local_gb=1000,
                    mapped=1,
                )
            )
            nodes[node] = {"VCPU": 128, "MEMORY_MB": memory, "DISK_GB": 1000}
        session.commit()
    with connect.session_for("api", connect.api_url(conf), conf) as api:
        cell_id = api.query(CellMapping.id).filter_by(uuid=cell.uuid).scalar()
        api.add_all(HostMapping(cell_id=cell_id, host=f"compute{i:04d}") for i in range(hosts))
        api.commit()
    return conf, nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hosts", type=int, default=1000)
    parser.add_argument("--decisions", type=int, default=2000)
    parser.add_argument(
        "--no-freeze",
        dest="freeze",
        action="store_false",
        help="leave start-up objects to the cyclic GC (see the p99 tail)",
    )
    parser.add_argument("--ttl", type=float, default=1.0, help="[scheduler] host_state_ttl")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="saphira-bench-") as tmp:
        conf, nodes = build(Path(tmp), args.hosts, args.ttl)
        placement = MemoryPlacement(nodes)
        scheduler = SchedulerManager(conf, placement)
        flavor = Flavor(flavorid="1", name="m1.small", vcpus=1, memory_mb=512, root_gb=1)
        ctxt, samples = RequestContext(), []
        warm = RequestSpec(str(uuid.uuid4()), "p", "u", flavor)
        scheduler.select_destinations(ctxt, warm, [warm.instance_uuid])  # the first full read
        if args.freeze:
            gc.freeze()  # as saphira.scheduler.service.start does after its first read
        started = time.perf_counter()
        for _ in range(args.decisions):
            spec = RequestSpec(str(uuid.uuid4()), "p", "u", flavor)
            begin, placement.spent = time.perf_counter(), 0.0
            scheduler.select_destinations(ctxt, spec, [spec.instance_uuid])
            # The candidates query stands for placement's HTTP reply: not the scheduler's time.
            samples.append(time.perf_counter() - begin - placement.spent)
        elapsed = time.perf_counter() - started
        scheduler.close()
    samples.sort()
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    print(
        f"hosts: {args.hosts}, decisions: {args.decisions}, host_state_ttl: {args.ttl}s, "
        f"gc.freeze after start: {args.freeze}"
    )
    print(f"decision p50: {statistics.median(samples) * 1000:.2f} ms")
    print(f"decision p99: {p99 * 1000:.2f} ms")
    print(
        f"decision max: {samples[-1] * 1000:.2f} ms "
        "(background host-state refreshes compete for the GIL)"
    )
    print(f"total: {elapsed:.1f} s")
    emit(
        Figure(
            "scheduler.p50",
            f"scheduler decision, {args.hosts:,} hosts, p50",
            statistics.median(samples) * 1000,
            "ms",
        ),
        Figure("scheduler.p99", f"scheduler decision, {args.hosts:,} hosts, p99", p99 * 1000, "ms"),
    )


if __name__ == "__main__":
    main()
