#!/usr/bin/env python3
"""What the privileged helper costs: its start and each call, against running the command here.

As root. Starts the oslo.privsep helper (``saphira.privsep.context``) and
times, over ``--calls`` calls each, a read-only entry point through it
against the same command run in this process (``privsep.runner.run``, the
one door before the privilege split): ``ip -j link show dev lo``
(``links.show``) and ``ip -j netns list`` (``netns.names``), plus an entry
point that runs no command (``context.identity``: the round trip alone).
Prints p50/p99 in milliseconds and the difference; asserts nothing.

    .venv/bin/python bench/privsep.py [--calls 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable

from saphira.privsep import context, links, netns
from saphira.privsep.runner import run


def timed(call: Callable[[], object], count: int) -> list[float]:
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def quantiles(samples: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(samples, n=100)
    return statistics.median(samples), cuts[98]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("run as root: the helper and the direct commands need it", file=sys.stderr)
        return 2
    print(f"load average {os.getloadavg()[0]:.2f}, {args.calls} calls each")
    start = time.perf_counter()
    context.ensure_started()
    context.identity()
    print(f"helper start (exec, imports, first call): {time.perf_counter() - start:.2f} s")
    pairs: list[tuple[str, Callable[[], object], Callable[[], object]]] = [
        ("links.show('lo')", lambda: links.show("lo"),
         lambda: run(["ip", "-d", "-j", "link", "show", "dev", "lo"])),
        ("netns.names()", netns.names, lambda: run(["ip", "-j", "netns", "list"])),
    ]  # fmt: skip
    p50, p99 = quantiles(timed(context.identity, args.calls))
    print(f"round trip alone (identity): p50 {p50:.2f} ms, p99 {p99:.2f} ms")
    for name, helper_call, direct_call in pairs:
        timed(helper_call, 5)
        via_p50, via_p99 = quantiles(timed(helper_call, args.calls))
        here_p50, here_p99 = quantiles(timed(direct_call, args.calls))
        print(
            f"{name}: helper p50 {via_p50:.2f} ms p99 {via_p99:.2f} ms; in process p50 "
            f"{here_p50:.2f} ms p99 {here_p99:.2f} ms; difference p50 {via_p50 - here_p50:+.2f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
