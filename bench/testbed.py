#!/usr/bin/env python3
"""What the test bed costs: ``up`` and ``down`` of a bed, with and without its controller.

As root, with the test servers' variables set (``source`` what ``tools/dev
testbed`` exports, or pass ``--no-controller``). Over ``--runs`` beds (named
``bN``), one after another, times: ``up`` of the nodes and networks alone
(namespaces, mounts, bridges, libvirtd + virtlogd and OVS in each node), a
second ``up`` (nothing to make), the controller's start on top (databases,
virtual host, first-start preparation, the three services ready), and
``down``. Prints min/median/max in seconds; asserts nothing.

    .venv/bin/python bench/testbed.py [--runs 3] [--mariadb] [--no-controller]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable

from saphira.devtools.testbed.bed import Bed, Servers
from saphira.devtools.testbed.layout import Layout
from saphira.devtools.testbed.runner import SystemRunner


def timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def servers(mariadb: bool) -> Servers:
    database = os.environ["SAPHIRA_TEST_MARIADB" if mariadb else "SAPHIRA_TEST_POSTGRESQL"]
    return Servers(database, os.environ["SAPHIRA_TEST_RABBIT"])


def one_run(index: int, args: argparse.Namespace) -> dict[str, float]:
    bed = Bed(
        Layout(f"bench{index}"), SystemRunner(), say=lambda line: None, join_tool=lambda: None
    )
    figures: dict[str, float] = {}
    try:
        figures["up, nodes and networks"] = timed(bed.up)
        figures["up again (nothing to make)"] = timed(bed.up)
        if not args.no_controller:
            backend = "mariadb" if args.mariadb else "postgresql"
            figures["up, the controller added"] = timed(
                lambda: bed.up(backend, servers(args.mariadb))
            )
    finally:
        figures["down"] = timed(bed.down)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mariadb", action="store_true")
    parser.add_argument("--no-controller", action="store_true")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("run as root: namespaces, mounts and daemons need it", file=sys.stderr)
        return 2
    print(f"load average {os.getloadavg()[0]:.2f}, {args.runs} beds one after another")
    runs = [one_run(index, args) for index in range(args.runs)]
    for what in runs[0]:
        values = [run[what] for run in runs]
        print(
            f"{what}: median {statistics.median(values):.1f} s "
            f"(min {min(values):.1f}, max {max(values):.1f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
