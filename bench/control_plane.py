#!/usr/bin/env python3
"""Control-plane figures of issue 11: the fake driver, the all-in-one on SQLite.

One fake host sized as Nova's fake driver (1,000 vCPU, 800,000 MB, 600,000
GB); the client is openstacksdk, polling every 50 ms. Prints create->ACTIVE
p50 over --runs servers made one after another, the wall time of 100 creates
posted by 20 threads until all are ACTIVE (and the all-in-one's CPU time
meanwhile), GET /servers/detail p50 with 1,000 servers, one page of 1,000
with 10,000 servers, the all-in-one's RSS, and what one build costs: RPC
round trips, casts, HTTP requests between services and write transactions,
counted in the all-in-one (bench/tallied_up.py). Failed runs are counted
and printed. Asserts nothing.

    .venv/bin/python bench/control_plane.py [--runs N] [--quick] [--only list|build]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Cloud, free_offset, rss_kib
from control_client import Client, Failures
from control_probe import Probe
from seed_servers import l2_agent, seed

from saphira.common.tally import Counts
from saphira.devtools.benchreport.figures import Figure, emit

CONF = """[DEFAULT]
# Servers seeded straight into the database are unknown to the fake driver.
sync_power_state_interval = -1

[fake_driver]
vcpus = 1000
memory_mb = 800000
local_gb = 600000
"""
# --user root: the tally file is written into the benchmark's own (root's) directory, and the
# figures stay comparable with those measured before `saphira up` dropped to its own user.
UP_FLAGS = ["--compute-driver", "fake.FakeDriver", "--no-test-image", "--no-provider-network",
            "--user", "root"]  # fmt: skip
PORT_NAMES = {5000: "identity", 8774: "compute", 8778: "placement", 9292: "image",
              9696: "network"}  # fmt: skip
POLLS = 5  # requests counted to learn what one poll costs
SETTLE = 1.0  # seconds left to a build's last steps after ACTIVE before counts are read
GOALS = {"single": "<= 50 ms", "burst": "<= 4 s", "list": "<= 100 ms", "page": "<= 150 ms",
         "rss": "<= 250 MB"}  # fmt: skip


def per_build(delta: Counts, builds: int, *off: tuple[Counts, float]) -> list[float]:
    """Counts per build (or request), after taking off each (counts, times) of ``off``."""
    return [
        (value - sum(getattr(counts, name) * times for counts, times in off)) / max(builds, 1)
        for name, value in delta.items()
    ]


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms" if values else "n/a"


class Run:
    """The phases, in order, against one cloud; each prints its lines."""

    def __init__(self, cloud: Cloud, probe: Probe, args: argparse.Namespace) -> None:
        self.cloud, self.probe, self.args = cloud, probe, args
        self.client = Client(cloud.state_dir)
        self.rows: list[tuple[str, str, str]] = []
        self.costs: list[tuple[str, list[float]]] = []
        self.breakdowns: list[tuple[str, Counter[str]]] = []
        self.failures = Failures()
        self.background, self.idle_seconds = Counts(), 1.0
        host = self.client.host()
        print(f"  the fake host: {host['service']['host']}, {host['vcpus']} vCPU, "
              f"{host['memory_mb']} MB, {host['local_gb']} GB")  # fmt: skip
        l2_agent(cloud.state_dir, host["service"]["host"])

    def idle(self) -> None:
        """The counts of an idle cloud over --idle seconds: what periodic tasks cost."""
        self.client.single("warm-up", self.failures, None)  # first-use caches, not counted
        began, before = time.perf_counter(), self.probe.counts()
        time.sleep(self.args.idle)
        self.background = self.probe.counts() - before
        self.idle_seconds = time.perf_counter() - began

    def one_by_one(self, network: str | None) -> None:
        """create->ACTIVE over --runs servers, each polled with GET /servers/{id}."""
        where = "on a network" if network else "without a network"
        self.client.single("warm-up", self.failures, network)  # first-use caches, not counted
        times = []
        for number in range(self.args.runs):
            took = self.client.single(f"one-{number}", self.failures, network)
            if took is not None:
                times.append(took)
        failed = self.args.runs - len(times)
        self.rows.append((f"create->ACTIVE, one server {where}, p50 ({self.args.runs} runs, "
                          f"{failed} failed)", ms(times), GOALS["single"]))  # fmt: skip
        key = f"control_plane.single_{'net' if network else 'none'}"
        if times:
            emit(
                Figure(
                    f"{key}_p50",
                    f"create->ACTIVE, one server {where}, p50",
                    statistics.median(times) * 1000,
                    "ms",
                )
            )
        emit(Figure(f"{key}_failed", f"create->ACTIVE {where}: failed runs", failed, "runs"))
        self.costs.append((f"GET /servers/{{id}} (a poll), {where}",
                           self.cost(POLLS, self.client.show)))  # fmt: skip

    def counted(self, network: str | None) -> None:
        """--runs more builds, waited for with polls that cost the cloud nothing: counted."""
        where = "on a network" if network else "without a network"
        self.costs.append((f"GET /servers?name=...&status=ACTIVE (a quiet poll), {where}",
                           self.cost(POLLS, self.client.quiet_poll)))  # fmt: skip
        (before, named), began = self.probe.read(), time.perf_counter()
        cpu = self.probe.cpu_seconds()
        for number in range(self.args.runs):
            name = f"counted-{'net' if network else 'none'}-{number}"
            self.client.single(name, self.failures, network, quiet=True)
        time.sleep(SETTLE)  # what the last build does after it shows ACTIVE
        (after, named_after), seconds = self.probe.read(), time.perf_counter() - began
        each = (self.probe.cpu_seconds() - cpu) / max(self.args.runs, 1) * 1000
        print(f"  all-in-one CPU time per build {where}, one at a time (quiet polls and "
              f"{SETTLE:.0f} s of idle included): {each:.0f} ms")  # fmt: skip
        delta = after - before
        self.breakdowns.append((where, named_after - named))
        idle = self.idle_for(seconds)
        self.costs.append((f"one build {where}, one at a time",
                           per_build(delta, self.args.runs, idle)))  # fmt: skip

    def idle_for(self, seconds: float) -> tuple[Counts, float]:
        """The idle background and how many idle spans make ``seconds``."""
        return self.background, seconds / self.idle_seconds

    def cost(self, times: int, request: Callable[[], object]) -> list[float]:
        """What one request costs inside the cloud, over ``times`` of them."""
        before = self.probe.counts()
        for _ in range(times):
            request()
        return per_build(self.probe.counts() - before, times)

    def burst(self) -> None:
        count, threads = self.args.concurrent, self.args.threads
        connections = self.client.connections(threads)  # their tokens: not the builds' cost
        before, cpu = self.probe.counts(), self.probe.cpu_seconds()
        wall, failed = self.client.burst(count, connections)
        if failed:
            self.failures.add("burst creates not ACTIVE", failed)
        cpu = self.probe.cpu_seconds() - cpu
        time.sleep(SETTLE)  # the last builds' last steps
        delta = self.probe.counts() - before
        self.rows.append((f"{count} concurrent creates ({threads} threads), all ACTIVE "
                          f"({failed} failed)", f"{wall:.1f} s", GOALS["burst"]))  # fmt: skip
        emit(
            Figure("control_plane.burst", f"{count} concurrent creates, all ACTIVE", wall, "s"),
            Figure(
                "control_plane.burst_failed",
                f"{count} concurrent creates: not ACTIVE",
                failed,
                "servers",
            ),
        )
        self.costs.append((f"one build of {count} at once, polls included",
                           per_build(delta, count, self.idle_for(wall + SETTLE))))  # fmt: skip
        print(f"  all-in-one CPU time during the burst: {cpu:.1f} s in {wall:.1f} s wall "
              f"({cpu / wall:.0%} of one core; {cpu / max(count, 1) * 1000:.0f} ms per build, "
              f"polls included)")  # fmt: skip

    def lists(self, servers: int, label: str, goal: str, query: str) -> None:
        idle_cpu = self.idle_cpu()
        before, began = self.probe.counts(), time.perf_counter()
        cpu = self.probe.cpu_seconds()
        times = self.client.lists(self.args.lists, query)
        seconds = time.perf_counter() - began
        cpu = (self.probe.cpu_seconds() - cpu - idle_cpu * seconds) / max(self.args.lists, 1)
        delta, idle = self.probe.counts() - before, self.idle_for(seconds)
        self.rows.append((f"GET /servers/detail{query}, {servers:,} servers, {label}p50 "
                          f"({self.args.lists} runs)", ms(times), goal))  # fmt: skip
        if times:
            which = "page" if query else "list"
            emit(
                Figure(
                    f"control_plane.{which}_p50",
                    f"GET /servers/detail{query}, {servers:,} servers, {label}p50",
                    statistics.median(times) * 1000,
                    "ms",
                )
            )
        # CPU time moves less than wall time with the load of a shared machine.
        self.rows.append((f"  all-in-one CPU time per request of the row above (its idle "
                          f"{idle_cpu:.0%} of a core taken off)", f"{cpu * 1000:.0f} ms",
                          ""))  # fmt: skip
        self.costs.append((f"one GET /servers/detail{query}, {servers:,} servers",
                           per_build(delta, self.args.lists, idle)))  # fmt: skip

    def idle_cpu(self, seconds: float = 3.0) -> float:
        """The all-in-one's CPU seconds per second while nobody asks it anything."""
        cpu, began = self.probe.cpu_seconds(), time.perf_counter()
        time.sleep(seconds)
        return (self.probe.cpu_seconds() - cpu) / (time.perf_counter() - began)

    def fill(self, total: int) -> None:
        have, began = self.client.count(), time.perf_counter()
        if have >= total:  # a smaller --servers than the cloud already holds: nothing to make
            print(f"  {have} servers already, {total} asked: none made")
            return
        made, failed = self.client.fill(total - have)
        if failed:
            self.failures.add("fill creates not ACTIVE", failed)
        seconds = time.perf_counter() - began
        rate = made / seconds if seconds else 0.0
        print(
            f"  {made} servers made through the API in {seconds:.1f} s ({rate:.1f}/s, "
            f"{failed} failed); 10,000 that way: about {10000 / max(rate, 0.01) / 60:.0f} min"
        )

    def seed(self, total: int) -> None:
        have, began = self.client.count(), time.perf_counter()
        seed(self.cloud.state_dir, self.client.template(), total - have)
        print(f"  {total - have} copies seeded into the databases in "
              f"{time.perf_counter() - began:.1f} s (bench/seed_servers.py)")  # fmt: skip

    def rss(self, after: str, key: str) -> None:
        assert self.cloud.proc is not None
        mib = rss_kib(self.cloud.proc.pid) / 1024
        self.rows.append((f"RSS of the all-in-one after {after}", f"{mib:.0f} MiB", GOALS["rss"]))
        emit(Figure(f"control_plane.rss_{key}", f"RSS of the all-in-one after {after}", mib, "MiB"))

    def table(self) -> None:
        print("\n| figure | this run | goal |\n|---|---|---|")
        for figure, value, goal in self.rows:
            print(f"| {figure} | {value} | {goal} |")
        print(f"failed runs: {self.failures.describe()}")
        print(
            "\n| in the all-in-one, per | RPC calls | casts | fanouts | HTTP requests "
            "| write transactions | rolled back |\n|---|---|---|---|---|---|---|"
        )
        for label, values in self.costs:
            print(f"| {label} | " + " | ".join(f"{v:.1f}" for v in values) + " |")
        print(
            f"(idle background in {self.idle_seconds:.1f} s, taken off the build and list "
            f"rows in proportion to their length: {dict(self.background.items())})"
        )
        for where, named in self.breakdowns:
            print(f"\nwhat the counted builds {where} sent, per build (idle background not "
                  f"taken off), by port {self.ports()}:")  # fmt: skip
            for what, count in sorted(named.items()):
                print(f"  {count / self.args.runs:5.2f}  {what}")

    def ports(self) -> str:
        offset = self.cloud.port_offset
        return ", ".join(f"{port + offset} {name}" for port, name in PORT_NAMES.items())


def measure(cloud: Cloud, probe: Probe, args: argparse.Namespace) -> None:
    run = Run(cloud, probe, args)
    if args.only == "list":
        listing_only(run, args)
        return
    run.idle()
    run.one_by_one(None)
    run.counted(None)
    network = run.client.network()
    run.one_by_one(network)
    run.counted(network)
    run.burst()
    if args.only == "build":
        run.table()
        return
    run.fill(args.servers)
    run.lists(args.servers, "", GOALS["list"], "")
    run.rss(f"the runs above ({args.servers:,} servers)", "servers")
    run.seed(args.many)
    run.lists(args.many, "one page of 1,000, ", GOALS["page"], "?limit=1000")
    run.rss(f"the {args.many:,}-server lists", "many")
    run.table()


def listing_only(run: Run, args: argparse.Namespace) -> None:
    """The list figures alone: one server made through the API, the rest its copies."""
    run.client.single("template", run.failures, None)
    run.seed(args.servers)
    run.lists(args.servers, "", GOALS["list"], "")
    run.rss(f"the {args.servers:,}-server lists", "servers")
    run.seed(args.many)
    run.lists(args.many, "one page of 1,000, ", GOALS["page"], "?limit=1000")
    run.rss(f"the {args.many:,}-server lists", "many")
    run.table()


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="one-at-a-time creates (20)")
    parser.add_argument("--concurrent", type=int, default=100, help="creates in the burst (100)")
    parser.add_argument("--threads", type=int, default=20, help="threads posting them (20)")
    parser.add_argument("--servers", type=int, default=1000, help="for the full list (1,000)")
    parser.add_argument("--many", type=int, default=10000, help="for the page (10,000)")
    parser.add_argument("--lists", type=int, default=10, help="list requests timed (10)")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle background")
    parser.add_argument("--quick", action="store_true", help="a smoke run: small numbers")
    parser.add_argument("--only", choices=["list", "build"], help="list: the list figures "
                        "alone, on copies of one server (no create, burst or fill); build: the "
                        "create figures alone (no fill, seed or list)")  # fmt: skip
    args = parser.parse_args()
    if args.quick:
        args.runs, args.concurrent, args.threads = 3, 10, 5
        args.servers, args.many, args.lists, args.idle = 50, 500, 3, 2.0
    return args


def main() -> int:
    args = arguments()
    work = Path(tempfile.mkdtemp(prefix="saphira-bench-control-"))
    (work / "bench.conf").write_text(CONF)
    tally_file = work / "tally.json"
    up = [sys.executable, str(Path(__file__).resolve().parent / "tallied_up.py"), str(tally_file)]
    cloud = Cloud(up, work / "state", free_offset(), work / "saphira.log",
                  extra_args=["--config-file", str(work / "bench.conf"), *UP_FLAGS])  # fmt: skip
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"{os.cpu_count()} CPUs")  # fmt: skip
    try:
        print(f"saphira up (fake driver, one host) ready after {cloud.start():.1f} s")
        assert cloud.proc is not None
        measure(cloud, Probe(cloud.proc.pid, tally_file), args)
    except Exception as error:
        cloud.stop()
        print(f"control-plane benchmark stopped: {error!r}\n  saphira log kept: {cloud.log_path}")
        return 1
    cloud.stop()
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
