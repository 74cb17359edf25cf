#!/usr/bin/env python3
"""`saphira up` that writes what it holds on SIGUSR2, for bench/memory.py.

    python bench/memory_up.py REPORT_FILE FRAMES up [saphira up's arguments]

The same process and code as `saphira up` (its `main`). With FRAMES > 0,
tracemalloc records allocations with that many frames from the start (before
Saphira is imported; it slows the process and adds its own memory, so RSS is
also measured in a run with FRAMES 0). On SIGUSR2 a JSON report is written to
REPORT_FILE (a temporary file renamed over it): RSS, allocations by file,
imported modules by top-level package, threads by name and their stacks,
SQLAlchemy engines by URL with their pools, and the largest dicts and lists
reachable by gc.
"""

from __future__ import annotations

import gc
import json
import os
import re
import sys
import threading
import tracemalloc
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

DIGITS = re.compile(r"\d+")


def _rss_kib(field: str = "VmRSS") -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    return 0


def _by_file(limit: int = 40) -> list[tuple[str, int, int]]:
    if not tracemalloc.is_tracing():
        return []
    stats = tracemalloc.take_snapshot().statistics("filename")
    return [(str(s.traceback[0].filename), s.size, s.count) for s in stats[:limit]]


def _by_package() -> list[tuple[str, int]]:
    if not tracemalloc.is_tracing():
        return []
    sizes: Counter[str] = Counter()
    for stat in tracemalloc.take_snapshot().statistics("filename"):
        name = str(stat.traceback[0].filename)
        parts = name.split("site-packages/", 1)
        tail = parts[1] if len(parts) == 2 else name.split("/src/", 1)[-1]
        sizes[tail.split("/", 1)[0]] += stat.size
    return sizes.most_common(30)


def _modules() -> dict[str, Any]:
    top = Counter(name.split(".", 1)[0] for name in list(sys.modules))
    return {"count": len(sys.modules), "by_package": top.most_common(40)}


def _threads() -> dict[str, Any]:
    names = Counter(DIGITS.sub("N", thread.name) for thread in threading.enumerate())
    return {
        "count": threading.active_count(),
        "stack_size": threading.stack_size(),  # 0: the C library's default (8 MiB here)
        "by_name": names.most_common(),
    }


def _engines() -> list[dict[str, Any]]:
    from sqlalchemy.engine import Engine

    found = []
    for engine in [o for o in gc.get_objects() if type(o) is Engine]:
        pool = engine.pool
        found.append({"url": str(engine.url), "pool": type(pool).__name__,
                      "status": pool.status()})  # fmt: skip
    return sorted(found, key=lambda e: e["url"])


def _biggest_containers(limit: int = 15) -> list[tuple[str, int]]:
    sized = [
        (type(o).__name__, len(o)) for o in gc.get_objects() if isinstance(o, dict | list | set)
    ]
    return sorted(sized, key=lambda item: -item[1])[:limit]


def report() -> dict[str, Any]:
    gc.unfreeze()  # the scheduler freezes start-up objects; gc would not list them
    gc.collect()
    return {
        "rss_kib": _rss_kib(), "rss_anon_kib": _rss_kib("RssAnon"),
        "rss_file_kib": _rss_kib("RssFile"), "threads": _threads(), "modules": _modules(),
        "engines": _engines(), "by_file": _by_file(), "by_package": _by_package(),
        "traced_kib": tracemalloc.get_traced_memory()[0] // 1024 if tracemalloc.is_tracing() else 0,
        "biggest_containers": _biggest_containers(),
    }  # fmt: skip


def main(argv: list[str]) -> int:
    path, frames = argv[0], int(argv[1])
    if frames > 0:
        tracemalloc.start(frames)
    import signal

    from saphira.cmd import up

    def dump(_signum: int, _frame: FrameType | None) -> None:
        temporary = f"{path}.tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(report(), handle)
        os.replace(temporary, path)

    signal.signal(signal.SIGUSR2, dump)
    return up.main(argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
