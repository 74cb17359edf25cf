#!/usr/bin/env python3
"""GET /servers (compute API, authenticated) with and without 200 idle connections.

Starts `saphira up` on a fresh state directory (loopback only), then runs the
same load twice: a few client threads, each with its own kept-alive session,
GET /servers until a request count or a time bound, first alone, then while
200 idle TCP connections (and 8 that dribble a request head that never ends)
are held open against the compute API. Failed requests (an error status, a
refused or timed-out connection) are counted, not hidden. Prints requests per
second, p50 and p99 for both runs; asserts nothing.

    .venv/bin/python bench/idle_connections.py [--requests N] [--seconds S] [--threads T]
"""

from __future__ import annotations

import argparse
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import requests
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Cloud, free_offset
from tokens import password_body

from saphira.devtools.benchreport.figures import Figure, emit

IDLE = 200
SLOW = 8
TIMEOUT = 30.0
HEAD = b"GET /v2.1/servers HTTP/1.1\r\nHost: x\r\n"  # and never the blank line


@dataclass
class Run:
    latencies: list[float] = field(default_factory=list)
    failures: int = 0
    wall: float = 0.0


def load(url: str, token: str, count: int, seconds: float, threads: int) -> Run:
    run = Run()
    lock = threading.Lock()
    remaining = [count]
    deadline = time.perf_counter() + seconds

    def worker() -> None:
        with requests.Session() as session:
            session.headers["X-Auth-Token"] = token
            while time.perf_counter() < deadline:
                with lock:
                    if remaining[0] <= 0:
                        return
                    remaining[0] -= 1
                began = time.perf_counter()
                try:
                    ok = session.get(url, timeout=TIMEOUT).status_code == 200
                except requests.RequestException:
                    ok = False
                took = time.perf_counter() - began
                with lock:
                    if ok:
                        run.latencies.append(took)
                    else:
                        run.failures += 1

    began = time.perf_counter()
    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    run.wall = time.perf_counter() - began
    return run


@contextmanager
def held_open(address: tuple[str, int]) -> Iterator[None]:
    idle = [socket.create_connection(address, TIMEOUT) for _ in range(IDLE)]
    slow = [socket.create_connection(address, TIMEOUT) for _ in range(SLOW)]
    stop = threading.Event()

    def dribble() -> None:
        for sock in slow:
            sock.sendall(HEAD)
        while not stop.wait(1.0):
            for n, sock in enumerate(slow):
                try:
                    sock.sendall(b"X")
                except OSError:  # closed by the server (header_timeout): come back, as slowloris
                    sock.close()
                    slow[n] = socket.create_connection(address, TIMEOUT)
                    slow[n].sendall(HEAD)

    thread = threading.Thread(target=dribble, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(TIMEOUT)
        for sock in idle + slow:
            sock.close()


def report(name: str, run: Run, key: str) -> None:
    done = len(run.latencies)
    if done < 2:
        print(f"  {name:<28} too few answers ({done}), {run.failures} failed")
        return
    cuts = statistics.quantiles(run.latencies, n=100)
    print(
        f"  {name:<28} n={done:<5} {done / run.wall:7.1f} /s  p50={cuts[49] * 1000:6.1f} ms  "
        f"p99={cuts[98] * 1000:6.1f} ms  failed={run.failures}"
    )
    emit(
        Figure(
            f"idle_connections.{key}_rate",
            f"GET /servers rate, {name}",
            done / run.wall,
            "/s",
            "higher",
        ),
        Figure(f"idle_connections.{key}_p99", f"GET /servers p99, {name}", cuts[98] * 1000, "ms"),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000, help="per run (default 2000)")
    parser.add_argument("--seconds", type=float, default=20.0, help="per run (default 20)")
    parser.add_argument("--threads", type=int, default=4, help="client threads (default 4)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="saphira-bench-idle-"))
    cloud = Cloud([sys.executable, "-m", "saphira.cmd.up"], work / "state", free_offset(),
                  work / "saphira.log",
                  extra_args=["--compute-driver", "fake.FakeDriver", "--no-test-image",
                              "--no-provider-network"])  # fmt: skip
    try:
        cloud.start()
        clouds = yaml.safe_load((cloud.state_dir / "clouds.yaml").read_text())
        password = clouds["clouds"]["admin"]["auth"]["password"]
        made = requests.post(f"{cloud.identity_url}/auth/tokens", json=password_body(password),
                             timeout=TIMEOUT)  # fmt: skip
        token = made.headers["X-Subject-Token"]
        port = 8774 + cloud.port_offset
        url = f"http://127.0.0.1:{port}/v2.1/servers"
        print(f"GET /servers, {args.threads} client threads, at most {args.requests} "
              f"requests or {args.seconds:g} s per run")  # fmt: skip
        report("alone", load(url, token, args.requests, args.seconds, args.threads), "alone")
        with held_open(("127.0.0.1", port)):
            report(f"{IDLE} idle + {SLOW} slow held", load(url, token, args.requests,
                                                           args.seconds, args.threads),
                   "held")  # fmt: skip
    except (RuntimeError, requests.RequestException) as error:
        cloud.stop()
        print(f"idle-connection benchmark stopped: {error}\n  saphira log kept: {cloud.log_path}")
        return 1
    cloud.stop()
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
