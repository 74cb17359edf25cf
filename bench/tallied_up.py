#!/usr/bin/env python3
"""`saphira up` with the tally installed, for the benchmarks that count.

    python bench/tallied_up.py TALLY_FILE up [saphira up's arguments]

The same process and code as `saphira up` (its `main`), after
`saphira.common.tally.install()`: every HTTP request this process sends and
every write transaction it commits is counted beside the RPC calls and casts
the stubs always count. A request `saphira up` hands to its own application
in process (`saphira.clients.inprocess`) is counted too, as
`http_requests in-process METHOD :port/path`; one that crossed a socket has
no `in-process` in its detail. On SIGUSR1 the counts, in total and by what
was sent, are written as JSON to TALLY_FILE (a temporary file renamed over
it, so a reader never sees half).
"""

from __future__ import annotations

import json
import os
import signal
import sys
from types import FrameType

from saphira.clients.inprocess import WSGITransport
from saphira.clients.transport import Reply, Request
from saphira.cmd import up
from saphira.common import tally


def count_in_process(counted: tally.Tally) -> None:
    """Count each request an in-process transport hands to its application."""
    send = WSGITransport.send

    def counting(self: WSGITransport, request: Request) -> Reply:
        counted.add("http_requests", "in-process " + tally.target(request.method, request.url))
        return send(self, request)

    WSGITransport.send = counting  # type: ignore[method-assign]


def main(argv: list[str]) -> int:
    path = argv[0]

    def dump(_signum: int, _frame: FrameType | None) -> None:
        temporary = f"{path}.tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            counts = dict(tally.TALLY.read().items())
            json.dump({"counts": counts, "details": tally.TALLY.details()}, handle)
        os.replace(temporary, path)

    tally.install()
    count_in_process(tally.TALLY)
    signal.signal(signal.SIGUSR1, dump)
    return up.main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
