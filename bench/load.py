#!/usr/bin/env python3
"""Issue 15's load on the test bed: simulated and real servers under concurrent clients.

As root, with the test servers' variables set (as for ``testbed.py``). One bed
(``bl0``) with its two nodes joined; the tiny image on the bed's provider
network; then ``--fake`` simulated servers on a fake compute host beside the
controller (``saphira-compute`` with the fake driver) and ``--real`` tiny TCG
guests on the nodes, and ``--clients`` clients for ``--minutes``, each with its
own connection and share of the servers, one action at a time with a pause
between (list a page, show, reboot, stop and start, create and delete, read a
console; every wait polls once a second: ``tests/integration/testbed/load.py``).
The RSS of every controller service and node agent is sampled every 10 s; growth
is judged after the first fifth of the drive (the warm-up).
Afterwards every server is deleted and what outlives them is counted (domains,
taps, ports, placement claims).

Prints the actions done and failed, the errors, each process's RSS over the run,
the processes whose memory grew and what was left; asserts nothing.

    .venv/bin/python bench/load.py [--fake 500] [--real 20] [--clients 20] [--minutes 10]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

from testbed import servers

from saphira.devtools.benchreport.figures import Figure, emit
from saphira.devtools.testbed.bed import Bed
from saphira.devtools.testbed.controller import FAKE_HOST, FakeSize
from saphira.devtools.testbed.layout import Layout
from saphira.devtools.testbed.runner import SystemRunner
from saphira.guest_image import build

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.integration
from tests.integration.testbed.bedcloud import PLACEMENT, BedCloud, provider_network
from tests.integration.testbed.load import FAKE, REAL, Fleet, Plan, Sampler, delete_all, drive


def overcommit(conn: Any, real: int, vcpus: int) -> None:
    """Raise each node's VCPU allocation ratio through the placement API, as an operator
    would (``openstack resource provider inventory set --amend``), until ``real`` guests
    of ``vcpus`` each fit on the nodes together; the compute agents keep a ratio set so
    while their ``cpu_allocation_ratio`` is unset. Run before the fake host exists."""
    nodes = list(conn.compute.hypervisors())
    for node in nodes:
        path = f"/resource_providers/{node.id}/inventories/VCPU"
        for _attempt in range(5):  # the agent's periodic report may take the generation
            record = conn.placement.get(path, headers=PLACEMENT).json()
            usable = record["total"] - record["reserved"]
            ratio = math.ceil(real / len(nodes)) * vcpus / usable
            if ratio <= record["allocation_ratio"]:
                break
            reply = conn.placement.put(path, json={**record, "allocation_ratio": ratio},
                                       headers=PLACEMENT)  # fmt: skip
            if reply.status_code == 200:
                break
            if reply.status_code != 409:
                raise RuntimeError(f"{path}: {reply.status_code} {reply.text}")
        else:
            raise RuntimeError(f"{path}: still in conflict after 5 attempts")


def run(plan: Plan, image: Path) -> int:
    bed = Bed(Layout("bl0"), SystemRunner(), say=lambda line: None)
    cloud = BedCloud(bed)
    try:
        state = bed.up(servers=servers(mariadb=False))
        controller = bed.controller(state)
        assert controller is not None
        cloud.manage("cell_v2", "discover_hosts")
        provider_network(cloud, image)
        conn = cloud.sdk
        fleet = Fleet(conn.image.find_image("tiny").id, conn.compute.find_flavor("tiny").id,
                      FAKE_HOST, conn.network.find_network("prov").id)  # fmt: skip
        fleet.make_room(conn, plan)
        overcommit(conn, plan.real, conn.compute.get_flavor(fleet.flavor).vcpus)
        sampler = Sampler(cloud.service_pids(), every=10)
        sampler.start()
        start = time.perf_counter()
        reals = fleet.create_real(conn, REAL, plan.real)  # on the nodes: no fake host yet
        made_real = time.perf_counter() - start
        size = FakeSize(vcpus=max(64, plan.fake // 4), memory_mb=max(65536, plan.fake * 256))
        controller.fake_compute(state, 4, size)
        cloud.manage("cell_v2", "discover_hosts")
        sampler.watch(f"controller/{FAKE_HOST}", cloud.service_pids()[f"controller/{FAKE_HOST}"])
        start = time.perf_counter()
        fakes = fleet.create_fake(conn, FAKE, plan.fake)
        made_fake = time.perf_counter() - start
        print(f"{plan.real} real servers ACTIVE in {made_real:.0f} s, "
              f"{plan.fake} simulated in {made_fake:.0f} s")  # fmt: skip
        warm = time.monotonic() + plan.seconds / 5  # judged from there on (Sampler.grown)
        tally = drive(cloud.connect, fleet, plan, fakes, reals)
        sampler.stop()
        ids, ports = delete_all(conn, reals)
        left = cloud.leftovers(ids, ports)
    finally:
        problems = bed.down()
        if problems:
            print(f"bed {bed.layout.bed}: down left {problems}", file=sys.stderr)
    done, failed = sum(tally.done.values()), sum(tally.failed.values())
    print(f"actions: {done} done {dict(tally.done)}, {failed} failed {dict(tally.failed)}")
    print("\n".join(tally.errors))
    print("\n".join(sampler.table(since=warm)))
    grown = sampler.grown(since=warm)
    print(f"grown: {grown or 'none'}; left after the deletes: {left or 'nothing'}")
    rate = done / plan.seconds
    emit(Figure("load.actions_per_s", "load: client actions per second", rate, "/s", "higher"))
    emit(Figure("load.failed", "load: actions failed", float(failed), ""))
    emit(Figure("load.grown", "load: processes whose RSS grew", float(len(grown)), ""))
    emit(Figure("load.left", "load: things left after the deletes", float(len(left)), ""))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fake", type=int, default=500)
    # 20: each bed node has 2 CPUs, 8 tiny guests at the default allocation ratio of 4;
    # overcommit() raises it through placement as far as the guests need.
    parser.add_argument("--real", type=int, default=20)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--minutes", type=float, default=10)
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("run as root: namespaces, mounts and daemons need it", file=sys.stderr)
        return 2
    image = build(Path(os.environ.get("TMPDIR", "/var/tmp")) / "saphira-bench-tiny").qcow2
    plan = Plan(args.fake, args.real, args.clients, args.minutes * 60)
    print(f"load average {os.getloadavg()[0]:.2f}; {plan}")
    return run(plan, image)


if __name__ == "__main__":
    sys.exit(main())
