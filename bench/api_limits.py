"""In process, no server: what a caller's name filter costs with RE2 (the
compute API's engine) against Python's re, on a name of N ``a`` and a ``!``
for the backtracking pattern ``(a|aa)*$``; and the quota's answer to
max_count = 2^31-1 (one division per resource). Prints figures, asserts nothing.

    .venv/bin/python bench/api_limits.py [--re-up-to 26]
"""

from __future__ import annotations

import argparse
import functools
import re
import time
from collections.abc import Callable

from saphira.api.compute import regex_filter
from saphira.domain import quota

PATTERN = "(a|aa)*$"


def _ms(work: Callable[[], object], repeat: int = 1) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        work()
    return (time.perf_counter() - start) / repeat * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--re-up-to", type=int, default=26, help="longest name for Python's re")
    args = parser.parse_args()
    found = regex_filter.search("name", PATTERN)
    for length in (20, 40, 1000, 100000):
        name = "a" * length + "!"
        took = _ms(functools.partial(found, name), 20)
        print(f"RE2  {PATTERN!r} on {length:>6} a + '!': {took:9.3f} ms")
    compiled = re.compile(PATTERN)
    for length in range(18, args.re_up_to + 1, 2):
        name = "a" * length + "!"
        print(f"re   {PATTERN!r} on {length:>6} a + '!': "
              f"{_ms(functools.partial(compiled.search, name)):9.3f} ms")  # fmt: skip
    limits = {"instances": 10, "cores": 20, "ram": 51200}
    each = quota.server_deltas(1, 512)
    granted = quota.most_that_fit(limits, {}, each, 1, 2**31 - 1)
    cost = _ms(lambda: quota.most_that_fit(limits, {}, each, 1, 2**31 - 1), 1000)
    print(f"quota: max_count 2^31-1 with 10 instances left grants {granted} in {cost:.4f} ms")


if __name__ == "__main__":
    main()
