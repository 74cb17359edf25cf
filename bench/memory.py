#!/usr/bin/env python3
"""What the all-in-one holds in memory, after start and after a load of servers.

Starts `saphira up` (fake driver, one host sized as Nova's fake driver,
SQLite) through bench/memory_up.py, makes --servers servers through the API
(openstacksdk, 100 per request) and lists them --lists times, and prints at
both points: RSS, imported modules (by top-level package), threads (by name)
and the thread stack size, SQLAlchemy engines by URL and their pools, and
with --frames > 0 the top allocation sites by file and by package
(tracemalloc, which adds its own memory: compare RSS in a run with
--frames 0, the default). Asserts nothing.

    .venv/bin/python bench/memory.py [--servers N] [--frames N] [--top N]
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Cloud, free_offset
from control_client import Client
from control_plane import CONF, UP_FLAGS


def snapshot(cloud: Cloud, report: Path) -> dict[str, Any]:
    assert cloud.proc is not None
    report.unlink(missing_ok=True)
    cloud.proc.send_signal(signal.SIGUSR2)
    deadline = time.monotonic() + 300
    while not report.exists():
        if time.monotonic() > deadline:
            raise RuntimeError("no memory report from the all-in-one")
        time.sleep(0.1)
    found: dict[str, Any] = json.loads(report.read_text())
    return found


def show(label: str, found: dict[str, Any], top: int) -> None:
    print(f"\n== {label}")
    print(f"RSS {found['rss_kib'] / 1024:.0f} MiB (anonymous {found['rss_anon_kib'] / 1024:.0f}, "
          f"files {found['rss_file_kib'] / 1024:.0f})")  # fmt: skip
    modules, threads = found["modules"], found["threads"]
    print(f"modules: {modules['count']}; by package: "
          + ", ".join(f"{name} {n}" for name, n in modules["by_package"][:top]))  # fmt: skip
    print(f"threads: {threads['count']} (stack size {threads['stack_size'] or 'default'}): "
          + ", ".join(f"{name} x{n}" for name, n in threads["by_name"]))  # fmt: skip
    print(f"engines: {len(found['engines'])}")
    for engine in found["engines"]:
        print(f"  {engine['url'].rsplit('/', 1)[-1]}  {engine['pool']}: {engine['status']}")
    if found["traced_kib"]:
        print(f"traced by tracemalloc: {found['traced_kib'] / 1024:.0f} MiB; by package:")
        for name, size in found["by_package"][:top]:
            print(f"  {size / 1048576:7.1f} MiB  {name}")
        print("by file:")
        for name, size, count in found["by_file"][:top]:
            print(f"  {size / 1048576:7.1f} MiB  {count:8d}  {name}")
    print("largest containers: "
          + ", ".join(f"{kind} {n}" for kind, n in found["biggest_containers"]))  # fmt: skip


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=1000, help="servers made (1,000)")
    parser.add_argument("--lists", type=int, default=10, help="GET /servers/detail after (10)")
    parser.add_argument("--frames", type=int, default=0, help="tracemalloc frames (0: off)")
    parser.add_argument("--top", type=int, default=25, help="rows per table (25)")
    parser.add_argument("--config-file", action="append", default=[],
                        help="another configuration file for the all-in-one")  # fmt: skip
    return parser.parse_args()


def main() -> int:
    args = arguments()
    work = Path(tempfile.mkdtemp(prefix="saphira-bench-memory-"))
    (work / "bench.conf").write_text(CONF)
    report = work / "memory.json"
    here = Path(__file__).resolve().parent
    extra = [
        arg for path in args.config_file for arg in ("--config-file", str(Path(path).resolve()))
    ]
    up = [sys.executable, str(here / "memory_up.py"), str(report), str(args.frames)]
    files = ["--config-file", str(work / "bench.conf"), *extra]
    cloud = Cloud(up, work / "state", free_offset(), work / "saphira.log",
                  extra_args=[*files, *UP_FLAGS])  # fmt: skip
    print(f"saphira up ready after {cloud.start():.1f} s (log: {cloud.log_path})")
    try:
        show("after start", snapshot(cloud, report), args.top)
        client = Client(cloud.state_dir)
        began = time.perf_counter()
        made, failed = client.fill(args.servers)
        print(f"\n{made} servers made in {time.perf_counter() - began:.1f} s ({failed} failed)")
        client.lists(args.lists, "")
        show(f"after {args.servers:,} servers and {args.lists} lists", snapshot(cloud, report),
             args.top)  # fmt: skip
    finally:
        cloud.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
