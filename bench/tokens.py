#!/usr/bin/env python3
"""Token issue latency and throughput of `saphira up` on one core, and its RSS.

Starts a cloud on a fresh state directory with the server pinned to one CPU
(sched_setaffinity in the child before exec, so every thread inherits it) and
the load generator on the others, then issues tokens from a few client threads
to 127.0.0.1, bounded both by count and by time, three ways: the password
method (dominated by the scrypt hash, as it should be), the token method
(re-scoping an existing token: no hash) and validation. Prints p50/p99
latency, requests per second and VmRSS; asserts nothing.

    .venv/bin/python bench/tokens.py [--requests N] [--seconds S] [--threads T] [--core C]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Cloud, free_offset, rss_kib

from saphira.devtools.benchreport.figures import Figure, emit

Call = Callable[[requests.Session], requests.Response]


def _scoped(identity: dict[str, Any]) -> dict[str, Any]:
    project = {"name": "admin", "domain": {"name": "Default"}}
    return {"auth": {"identity": identity, "scope": {"project": project}}}


def password_body(password: str) -> dict[str, Any]:
    user = {"name": "admin", "domain": {"name": "Default"}, "password": password}
    return _scoped({"methods": ["password"], "password": {"user": user}})


def token_body(token: str) -> dict[str, Any]:
    return _scoped({"methods": ["token"], "token": {"id": token}})


def load(call: Call, count: int, seconds: float, threads: int) -> tuple[list[float], float]:
    """Run ``call`` up to ``count`` times or ``seconds``; latencies (s) and wall time."""
    latencies: list[float] = []
    lock = threading.Lock()
    remaining = [count]
    deadline = time.perf_counter() + seconds

    def worker() -> None:
        with requests.Session() as session:
            while time.perf_counter() < deadline:
                with lock:
                    if remaining[0] <= 0:
                        return
                    remaining[0] -= 1
                began = time.perf_counter()
                response = call(session)
                took = time.perf_counter() - began
                if response.status_code >= 300:
                    raise RuntimeError(f"{response.status_code}: {response.text[:200]}")
                with lock:
                    latencies.append(took)

    began = time.perf_counter()
    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return latencies, time.perf_counter() - began


def report(name: str, latencies: list[float], wall: float) -> None:
    if len(latencies) < 2:
        print(f"  {name:<22} too few requests ({len(latencies)})")
        return
    cuts = statistics.quantiles(latencies, n=100)
    print(
        f"  {name:<22} n={len(latencies):<6} p50={cuts[49] * 1000:7.1f} ms  "
        f"p99={cuts[98] * 1000:7.1f} ms  {len(latencies) / wall:8.1f} /s"
    )
    key = "tokens." + name.replace("issue (", "").rstrip(")")
    emit(
        Figure(f"{key}_p50", f"token {name}, p50", cuts[49] * 1000, "ms"),
        Figure(f"{key}_p99", f"token {name}, p99", cuts[98] * 1000, "ms"),
        Figure(f"{key}_rate", f"token {name}, rate", len(latencies) / wall, "/s", "higher"),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000, help="per method (default 2000)")
    parser.add_argument("--seconds", type=float, default=20.0, help="per method (default 20)")
    parser.add_argument("--threads", type=int, default=4, help="client threads (default 4)")
    cpus = sorted(os.sched_getaffinity(0))
    parser.add_argument("--core", type=int, default=cpus[-1], help="CPU for the server")
    args = parser.parse_args()
    others = set(cpus) - {args.core} or set(cpus)
    os.sched_setaffinity(0, others)  # the load generator stays off the server's core
    work = Path(tempfile.mkdtemp(prefix="saphira-bench-tokens-"))
    work.chmod(0o711)  # QEMU (the default libvirt driver) must reach the instances under it
    cloud = Cloud(
        [sys.executable, "-m", "saphira.cmd.up"], work / "state", free_offset(),
        work / "saphira.log", preexec=lambda: os.sched_setaffinity(0, {args.core}),
    )  # fmt: skip
    try:
        return run(cloud, args, others)
    finally:
        cloud.take_away()
        shutil.rmtree(work, ignore_errors=True)


def run(cloud: Cloud, args: argparse.Namespace, others: set[int]) -> int:
    ready = cloud.start()
    assert cloud.proc is not None
    pid = cloud.proc.pid
    rss_start = rss_kib(pid)
    clouds = yaml.safe_load((cloud.state_dir / "clouds.yaml").read_text())
    password = clouds["clouds"]["admin"]["auth"]["password"]
    url = f"{cloud.identity_url}/auth/tokens"
    first = requests.post(url, json=password_body(password), timeout=30)
    token = first.headers["X-Subject-Token"]
    calls: dict[str, Call] = {
        "issue (password)": lambda s: s.post(url, json=password_body(password), timeout=30),
        "issue (token)": lambda s: s.post(url, json=token_body(token), timeout=30),
        "validate": lambda s: s.get(
            url, headers={"X-Auth-Token": token, "X-Subject-Token": token}, timeout=30
        ),
    }
    print(
        f"saphira token benchmark: server on CPU {args.core}, clients on CPUs "
        f"{sorted(others)}, {args.threads} client threads, "
        f"at most {args.requests} requests or {args.seconds:g} s per method"
    )
    print(f"  {'ready after':<22} {ready:.2f} s")
    for name, call in calls.items():
        report(name, *load(call, args.requests, args.seconds, args.threads))
    print(f"  {'RSS after start':<22} {rss_start / 1024:.1f} MiB")
    print(f"  {'RSS after the load':<22} {rss_kib(pid) / 1024:.1f} MiB")
    emit(
        Figure(
            "tokens.rss", "RSS of the all-in-one after the token load", rss_kib(pid) / 1024, "MiB"
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
