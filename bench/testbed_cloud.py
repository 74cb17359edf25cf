#!/usr/bin/env python3
"""Issue 13's cloud figures on the test bed: a node joined, a compute agent's death, a
cold migration.

As root, with the test servers' variables set (as for ``testbed.py``). Over
``--runs`` beds (named ``bcN``), one after another: the bed's nodes,
networks, daemons and controller made without joining (``testbed.py``
measures those steps apart), then for each node

* **join -> hypervisor up**: ``saphira-openstack-setup-compute`` run inside
  the node with a fresh token (the tool waits, bounded, until the controller
  sees the compute service, the hypervisor, the placement provider and the
  agents with the mapping), then ``openstack hypervisor list`` polled every
  second from the tool's start until the node's hypervisor is up;

then, after ``discover_hosts``, the tiny image booted on a flat provider network:

* **cold migration**: ``server migrate`` of an ACTIVE tiny server, once its
  guest said it is ready (before that its acpid does not run yet and the
  clean shutdown waits out its 60 s), until VERIFY_RESIZE, then ``migrate
  confirm`` until ACTIVE on the other node (the disk moves between the nodes);
* **agent death -> service down -> avoided**: the compute agent of the
  server's node killed (its supervisor first, so it stays dead), ``compute
  service list`` polled every second until the service is down (the
  bed's controller has ``service_down_time = 30``, the nodes report every 10 s),
  then a new server created with ``--wait``: where it went.

Every poll sleeps a second; a run that fails is counted and its bed torn down.
Prints min/median/max; asserts nothing.

    .venv/bin/python bench/testbed_cloud.py [--runs 2]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from testbed import servers

from saphira.devtools.benchreport.figures import Figure, emit
from saphira.devtools.testbed.bed import Bed
from saphira.devtools.testbed.layout import Layout
from saphira.devtools.testbed.runner import SystemRunner
from saphira.guest_image import READY, build

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.integration
from tests.integration.testbed.bedcloud import BedCloud, provider_network

POLL = 1.0


def until(check: Callable[[], bool], timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError("not within the time allowed")
        time.sleep(POLL)


def status_is(cloud: BedCloud, name: str, wanted: str) -> Callable[[], bool]:
    def check() -> bool:
        status = str(cloud.server(name)["status"])
        if status == "ERROR" and wanted != "ERROR":
            raise RuntimeError(f"{name} went to ERROR: {cloud.server(name).get('fault')}")
        return status == wanted

    return check


def one_run(index: int, image: Path) -> dict[str, float]:
    bed = Bed(Layout(f"bc{index}"), SystemRunner(), say=lambda line: None)
    cloud = BedCloud(bed)
    figures: dict[str, float] = {}
    tool = bed.join_tool
    try:
        bed.join_tool = lambda: None
        bed.up(servers=servers(mariadb=False))
        bed.join_tool = tool
        for name in bed.layout.nodes:
            start = time.perf_counter()
            bed.join(name)
            figures[f"{name}: join tool's run"] = time.perf_counter() - start

            def up(node: str = name) -> bool:
                listed = cloud.openstack("hypervisor", "list", "-f", "json")
                return any(h["Hypervisor Hostname"] == node and h["State"] == "up" for h in listed)

            until(up)
            figures[f"{name}: join -> hypervisor up"] = time.perf_counter() - start
        cloud.manage("cell_v2", "discover_hosts", "--verbose")
        provider_network(cloud, image)
        cloud.openstack("server", "create", "--image", "tiny", "--flavor", "tiny",
                        "--network", "prov", "--wait", "m1")  # fmt: skip
        first = cloud.host_of("m1")
        until(lambda: READY in cloud.console("m1"))  # booted: its acpid takes the power button
        start = time.perf_counter()
        cloud.openstack("server", "migrate", "m1")
        until(status_is(cloud, "m1", "VERIFY_RESIZE"))
        figures["cold migration: migrate -> VERIFY_RESIZE"] = time.perf_counter() - start
        cloud.openstack("server", "migrate", "confirm", "m1")
        until(status_is(cloud, "m1", "ACTIVE"))
        figures["cold migration: migrate -> confirmed, ACTIVE"] = time.perf_counter() - start
        dead = cloud.host_of("m1")
        assert dead != first, "the server did not move"
        start = time.perf_counter()
        cloud.kill_compute(dead)

        def down() -> bool:
            listed = cloud.openstack("compute", "service", "list", "--host", dead, "-f", "json")
            return str(listed[0]["State"]) == "down"

        until(down)
        figures["agent killed -> service down"] = time.perf_counter() - start
        cloud.openstack("server", "create", "--image", "tiny", "--flavor", "tiny",
                        "--network", "prov", "--wait", "late")  # fmt: skip
        figures["agent killed -> a new server ACTIVE elsewhere"] = time.perf_counter() - start
        assert cloud.host_of("late") != dead, "the new server went to the dead node"
    finally:
        left = bed.down()
        if left:
            print(f"bed {bed.layout.bed}: down left {left}", file=sys.stderr)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("run as root: namespaces, mounts and daemons need it", file=sys.stderr)
        return 2
    image = build(Path(os.environ.get("TMPDIR", "/var/tmp")) / "saphira-bench-tiny").qcow2
    print(f"load average {os.getloadavg()[0]:.2f}, {args.runs} beds one after another")
    runs, failed = [], 0
    for index in range(args.runs):
        try:
            runs.append(one_run(index, image))
        except Exception:
            failed += 1
            traceback.print_exc()
    print(f"{len(runs)} runs, {failed} failed; load average {os.getloadavg()[0]:.2f}")
    for what in runs[0] if runs else []:
        values = [run[what] for run in runs if what in run]
        print(f"{what}: median {statistics.median(values):.1f} s "
              f"(min {min(values):.1f}, max {max(values):.1f})")  # fmt: skip
        key = "_".join(re.findall(r"[a-z0-9]+", what.lower()))
        emit(
            Figure(
                f"testbed_cloud.{key}", f"test bed: {what}, median", statistics.median(values), "s"
            )
        )
    return 0 if runs else 1


if __name__ == "__main__":
    sys.exit(main())
