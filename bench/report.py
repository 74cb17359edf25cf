"""One benchmark report: every figure earlier issues asked to measure, in one table.

Runs the benches below one after another (each with the arguments that give
its issue's figure in reasonable time, or with ``--quick`` a smoke run of
each), collects the figures they state (``SAPHIRA_BENCH_FIGURES``: one JSON
line per figure, ``saphira.devtools.benchreport.figures``) and writes
``bench/REPORT.md``: the machine, then one table of figure, ours, the goal,
floor or peer (and where it comes from), the ratio and whether it is met. A
bench that fails is counted as failed: its rows say so and the report is
still written. Run as root from the repository root, on an idle machine:

    .venv/bin/python bench/report.py [--quick] [--only KEY,...] [--out PATH]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from saphira.devtools.benchreport import figures, machine
from saphira.devtools.benchreport.table import Goal, Measured, Outcome, Row, outcomes_table, render

ROOT = Path(__file__).resolve().parents[1]
MIB_PER_MB = 1e6 / 2**20


@dataclass(frozen=True)
class Bench:
    """A bench the report runs: its script, full and quick arguments, what it needs."""

    key: str
    script: str
    args: tuple[str, ...] = ()
    quick: tuple[str, ...] = ()
    timeout: float = 900.0
    needs_env: tuple[str, ...] = ()  # variables it cannot run without (tools/servers.sh sets them)


POSTGRESQL = "SAPHIRA_TEST_POSTGRESQL"
BENCHES = (
    Bench("startup", "startup.py", timeout=900),
    Bench("tokens", "tokens.py", quick=("--requests", "50", "--seconds", "3")),
    Bench("image", "image_throughput.py", ("--size-mib", "2048"), ("--size-mib", "32")),
    Bench("scheduler", "scheduler.py", quick=("--hosts", "50", "--decisions", "50")),
    Bench("control_plane", "control_plane.py", quick=("--quick",), timeout=1800),
    Bench("guests", "guests.py", ("--runs", "10"), ("--runs", "1")),
    Bench(
        "network",
        "network.py",
        quick=("--guests", "1", "--ports", "2", "--agent-ports", "4", "--restarts", "1"),
    ),
    Bench("idle_connections", "idle_connections.py", quick=("--requests", "50", "--seconds", "3")),
    Bench("metadata", "metadata.py", quick=("--guests", "3", "--requests", "2")),
    Bench("console_browser", "console_browser.py", ("--runs", "5"), ("--runs", "1")),
    Bench(
        "testbed_cloud",
        "testbed_cloud.py",
        ("--runs", "1"),
        ("--runs", "1"),
        timeout=1500,
        needs_env=(POSTGRESQL, "SAPHIRA_TEST_RABBIT"),
    ),
    Bench(
        "rabbit_restart",
        "rabbit_restart.py",
        quick=("--restarts", "1", "--builds", "1"),
        needs_env=(POSTGRESQL,),
    ),
    Bench("dashboard", "dashboard.py", quick=("--runs", "1", "--launches", "1", "--sizes", "20")),
    Bench(
        "load",
        "load.py",
        quick=("--fake", "50", "--real", "2", "--clients", "5", "--minutes", "1"),
        timeout=2400,
        needs_env=(POSTGRESQL, "SAPHIRA_TEST_RABBIT"),
    ),
)

NOVA = "real Nova 34 stack (issue 11)"
FLOOR = "bare QEMU floor (issue 5 goal)"
CP = "cp + fsync, same file (the ceiling)"

# The goals and peers, as the issues wrote them; each row names its issue.
ROWS = (
    Row(2, "startup", "startup.clone_to_ready"),
    Row(2, "startup", "startup.warm_restart"),
    Row(2, "startup", "startup.rss"),
    Row(2, "tokens", "tokens.password_p50"),
    Row(2, "tokens", "tokens.password_p99"),
    Row(2, "tokens", "tokens.password_rate"),
    Row(2, "tokens", "tokens.token_p50"),
    Row(2, "tokens", "tokens.token_rate"),
    Row(2, "tokens", "tokens.validate_p50"),
    Row(2, "tokens", "tokens.validate_rate"),
    Row(2, "tokens", "tokens.rss"),
    Row(3, "image", "image.upload", Measured("image.cp", CP, judged=False)),
    Row(3, "image", "image.chunked", Measured("image.cp", CP, judged=False)),
    Row(3, "image", "image.download", Measured("image.cp", CP, judged=False)),
    Row(3, "image", "image.rss_peak"),
    Row(4, "control_plane", "control_plane.single_none_p50", Goal(100, "issue 4 goal")),
    Row(11, "control_plane", "control_plane.single_none_p50", Goal(50, "issue 11 goal")),
    Row(11, "control_plane", "control_plane.single_none_p50", Goal(836, NOVA)),
    Row(11, "control_plane", "control_plane.single_none_failed", Goal(0, "no failed run")),
    Row(11, "control_plane", "control_plane.single_net_p50"),
    Row(4, "control_plane", "control_plane.burst", Goal(5, "issue 4 goal")),
    Row(11, "control_plane", "control_plane.burst", Goal(4, "issue 11 goal")),
    Row(11, "control_plane", "control_plane.burst", Goal(146.7, NOVA)),
    Row(11, "control_plane", "control_plane.burst_failed", Goal(0, "no failed run")),
    Row(4, "scheduler", "scheduler.p50"),
    Row(4, "scheduler", "scheduler.p99", Goal(20, "issue 4 goal")),
    Row(11, "control_plane", "control_plane.list_p50", Goal(100, "issue 11 goal")),
    Row(11, "control_plane", "control_plane.list_p50", Goal(3050, NOVA)),
    Row(11, "control_plane", "control_plane.page_p50", Goal(150, "issue 11 goal")),
    Row(
        11,
        "control_plane",
        "control_plane.rss_servers",
        Goal(250 * MIB_PER_MB, "issue 11 goal: 250 MB"),
    ),
    Row(
        11,
        "control_plane",
        "control_plane.rss_servers",
        Goal(2827 * MIB_PER_MB, "real Nova 34 stack, 30 processes (issue 11)"),
    ),
    Row(11, "control_plane", "control_plane.rss_many"),
    Row(5, "guests", "guests.active_p50", Measured("guests.floor_p50", FLOOR, slack=1.5)),
    Row(5, "guests", "guests.marker_p50", Measured("guests.floor_p50", FLOOR, slack=0.5)),
    Row(5, "guests", "guests.delete_p50"),
    Row(
        5,
        "guests",
        "guests.idle_rss",
        Measured("guests.floor_rss", "bare QEMU after ready", judged=False),
    ),
    Row(6, "network", "network.lease_p50"),
    Row(6, "network", "network.lease_p99"),
    Row(6, "network", "network.port_active_p50"),
    Row(6, "network", "network.port_active_p99"),
    Row(6, "network", "agent_restart.first"),
    Row(6, "network", "agent_restart.restart_p50"),
    Row(6, "network", "agent_restart.ping_lost", Goal(0, "issue 6: no packet lost")),
    Row(
        10,
        "idle_connections",
        "idle_connections.held_rate",
        Measured("idle_connections.alone_rate", "without idle connections", judged=False),
    ),
    Row(
        10,
        "idle_connections",
        "idle_connections.held_p99",
        Measured("idle_connections.alone_p99", "without idle connections", judged=False),
    ),
    Row(12, "console_browser", "console_browser.p50"),
    Row(12, "metadata", "metadata.first_p50"),
    Row(12, "metadata", "metadata.first_p99"),
    Row(12, "metadata", "metadata.rest_p50"),
    Row(12, "metadata", "metadata.rest_p99"),
    Row(12, "metadata", "metadata.failed", Goal(0, "no failed request")),
    Row(
        12,
        "network",
        "network.boot_userdata_p50",
        Measured("network.boot_lease_p50", "boot -> lease, same guests", judged=False),
    ),
    Row(13, "testbed_cloud", "testbed_cloud.node1_join_hypervisor_up"),
    Row(13, "testbed_cloud", "testbed_cloud.node2_join_hypervisor_up"),
    Row(13, "testbed_cloud", "testbed_cloud.cold_migration_migrate_verify_resize"),
    Row(13, "testbed_cloud", "testbed_cloud.cold_migration_migrate_confirmed_active"),
    Row(13, "testbed_cloud", "testbed_cloud.agent_killed_service_down"),
    Row(13, "testbed_cloud", "testbed_cloud.agent_killed_a_new_server_active_elsewhere"),
    Row(13, "rabbit_restart", "rabbit_restart.back_p50"),
    Row(13, "rabbit_restart", "rabbit_restart.never", Goal(0, "every heartbeat back")),
    Row(14, "dashboard", "dashboard.first_byte_20"),
    Row(14, "dashboard", "dashboard.first_byte_200"),
    Row(14, "dashboard", "dashboard.first_byte_1000"),
    Row(14, "dashboard", "dashboard.drawn_20"),
    Row(14, "dashboard", "dashboard.drawn_200"),
    Row(14, "dashboard", "dashboard.drawn_1000", Goal(39000, "Horizon's published 39 s")),
    Row(
        14,
        "dashboard",
        "dashboard.drawn_1000",
        Goal(14000, "Horizon's 14 s after its template fix"),
    ),
    Row(
        14,
        "dashboard",
        "dashboard.launch_page",
        Measured("dashboard.launch_cli", "openstack server create --wait, same run"),
    ),
    Row(14, "dashboard", "dashboard.launch_sdk"),
    Row(14, "dashboard", "dashboard.failed", Goal(0, "no failed run")),
    Row(15, "load", "load.failed", Goal(0, "no failed action")),
    Row(15, "load", "load.grown", Goal(0, "memory flat")),
    Row(15, "load", "load.left", Goal(0, "no leak")),
    Row(15, "load", "load.actions_per_s"),
)


def run_bench(bench: Bench, quick: bool, out: Path, logs: Path) -> Outcome:
    """Run one bench with its figures written to ``out``; how it ended."""
    if missing := [name for name in bench.needs_env if not os.environ.get(name)]:
        return Outcome(bench.key, 0.0, f"not run: {', '.join(missing)} unset (tools/servers.sh)")
    argv = [
        sys.executable,
        str(ROOT / "bench" / bench.script),
        *(bench.quick if quick else bench.args),
    ]
    env = {**os.environ, figures.ENV: str(out)}
    log = logs / f"{bench.key}.log"
    print(f"report: {bench.key}: {' '.join(argv[1:])} (log {log})", flush=True)
    began = time.perf_counter()
    with log.open("w") as sink:
        try:
            done = subprocess.run(argv, cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT,
                                  timeout=bench.timeout, check=False)  # fmt: skip
        except subprocess.TimeoutExpired:
            return Outcome(
                bench.key, time.perf_counter() - began, f"timed out after {bench.timeout:.0f} s"
            )
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        return Outcome(bench.key, seconds, f"exit {done.returncode}: {last_line(log)}")
    return Outcome(bench.key, seconds)


def last_line(log: Path) -> str:
    lines = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    return (lines[-1] if lines else "no output")[:160].replace("|", "/")


def document(
    args: argparse.Namespace,
    head: str,
    outcomes: list[Outcome],
    found: dict[str, figures.Figure],
    total: float,
) -> str:
    chosen = {outcome.bench for outcome in outcomes}
    rows = [row for row in ROWS if row.bench in chosen]
    kind = (
        "a --quick smoke run (small numbers: not the issues' figures)"
        if args.quick
        else "a full run"
    )
    failed = sum(outcome.failure is not None for outcome in outcomes)
    return "\n".join(
        [
            "# Benchmark report",
            "",
            *([args.note, ""] if args.note else []),
            f"Written by `bench/report.py` ({kind}): {len(outcomes)} benches, {failed} failed, "
            f"{total / 60:.1f} min in all.",
            "",
            head,
            "",
            'Ratio is ours / the reference. A floor with a slack ("+ 0.5") is met within that '
            "many units of it; a reference shown only for scale (a ceiling, the same figure "
            "without a load) has no met column.",
            "",
            render(rows, found, {outcome.bench: outcome for outcome in outcomes}),
            "",
            "## The benches",
            "",
            outcomes_table(outcomes),
            "",
        ]
    )


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run of each bench")
    parser.add_argument(
        "--only",
        default="",
        help="bench keys, comma-separated: " + ",".join(b.key for b in BENCHES),
    )
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "REPORT.md")
    parser.add_argument("--note", default="", help="a line put at the top of the report")
    args = parser.parse_args()
    known = {bench.key for bench in BENCHES}
    unknown = set(filter(None, args.only.split(","))) - known
    if unknown:
        parser.error(f"--only: unknown {sorted(unknown)}; known: {sorted(known)}")
    return args


def main() -> int:
    args = arguments()
    wanted = set(filter(None, args.only.split(",")))
    benches = [bench for bench in BENCHES if not wanted or bench.key in wanted]
    load_before, host = machine.load(), machine.this_machine(ROOT)  # the commit measured
    began = time.perf_counter()
    logs = Path(tempfile.mkdtemp(prefix="saphira-bench-report-"))
    out = logs / "figures.jsonl"
    outcomes = [run_bench(bench, args.quick, out, logs) for bench in benches]
    total = time.perf_counter() - began
    head = machine.header(host, load_before, machine.load())
    args.out.write_text(document(args, head, outcomes, figures.read(out), total))
    print(f"report: {args.out} written in {total / 60:.1f} min; logs and figures in {logs}")
    return 0 if all(outcome.failure is None for outcome in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
