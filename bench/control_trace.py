#!/usr/bin/env python3
"""Where a build's time goes between the POST's reply and ACTIVE: a timeline.

Starts the all-in-one (fake driver, SQLite) with timestamps recorded inside
it: each HTTP request an API serves and each one it sends, each RPC message
delivered to the in-process bus, taken from it and dispatched to an
endpoint, each reply, and each wait for the SQLite writers' lock. The
client (openstacksdk, as bench/control_client.py) posts a server and polls
it as `single` does; the process's events for that build are printed on
the client's clock (both read CLOCK_MONOTONIC), with the thread that ran
each. Asserts nothing.

    .venv/bin/python bench/control_trace.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Cloud, free_offset
from control_client import Client, Failures
from control_plane import CONF, UP_FLAGS

Event = tuple[int, str, str, str]  # (monotonic ns, thread, begin/end/at, what)
EVENTS: list[Event] = []


def record(kind: str, what: str) -> None:
    EVENTS.append((time.monotonic_ns(), threading.current_thread().name, kind, what))


def wrap(owner: Any, name: str, label: Callable[..., str]) -> None:
    """Record a begin and an end around ``owner.name``, labelled by ``label(*args)``."""
    original = getattr(owner, name)

    def traced(*args: Any, **kwargs: Any) -> Any:
        what = label(*args, **kwargs)
        record("begin", what)
        try:
            return original(*args, **kwargs)
        finally:
            record("end", what)

    setattr(owner, name, traced)


def _method(text: str) -> str:
    return str(json.loads(text).get("method", "?"))


def install() -> None:
    """The hooks: cheroot, the in-process bus, oslo.messaging's dispatcher, requests."""
    import requests.adapters
    from cheroot import wsgi
    from oslo_messaging.rpc import dispatcher

    from saphira.db import sqlite_writers
    from saphira.rpc import inproc

    wrap(wsgi.Gateway, "respond", lambda g: f"serve {g.env['REQUEST_METHOD']} "
         f":{g.env['SERVER_PORT']}{g.env['PATH_INFO']}")  # fmt: skip
    wrap(requests.adapters.HTTPAdapter, "send", lambda _a, r, **_k: f"send {r.method} {r.url}")
    wrap(inproc._Bus, "deliver", lambda _b, _k, e: f"deliver {_method(e.message)}")
    wrap(inproc._Incoming, "reply", lambda *_a, **_k: "reply")
    wrap(inproc._Incoming, "__init__", lambda _i, _b, _k, e: f"taken {_method(e.message)}")
    wrap(dispatcher.RPCDispatcher, "dispatch", lambda _d, m: f"dispatch {m.message['method']}")
    wrap(inproc.InProcDriver, "send", lambda _d, t, _c, m, **_k: f"rpc {t.topic} {m['method']}")
    wrap(sqlite_writers.QueuedWriterConnection, "before_write", lambda _c: "sqlite writer lock")


def serve(argv: list[str]) -> int:
    """`saphira up` with the hooks; SIGUSR2 writes the events to argv[0] (then forgets them)."""
    from saphira.cmd import up

    path = argv[0]

    def dump(_signum: int, _frame: FrameType | None) -> None:
        taken = EVENTS[:]
        del EVENTS[: len(taken)]
        Path(f"{path}.tmp").write_text(json.dumps(taken))
        os.replace(f"{path}.tmp", path)

    install()
    signal.signal(signal.SIGUSR2, dump)
    return up.main(argv[1:])


class TracedClient(Client):
    """The bench's client, its requests recorded on the same clock."""

    def call(self, method: str, path: str, body: Any = None, conn: Any = None) -> Any:
        record("begin", f"client {method} {path[-12:]}")
        try:
            return super().call(method, path, body, conn)
        finally:
            record("end", f"client {method} {path[-12:]}")


def server_events(pid: int, path: Path) -> list[Event]:
    path.unlink(missing_ok=True)
    os.kill(pid, signal.SIGUSR2)
    while not path.exists():
        time.sleep(0.005)
    return [(at, thread, kind, what) for at, thread, kind, what in json.loads(path.read_text())]


def show(events: list[Event]) -> None:
    events.sort()
    zero = events[0][0]
    for at, thread, kind, what in events:
        print(f"  {(at - zero) / 1e6:8.2f} ms  {thread[:28]:28}  {kind:5}  {what[:90]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="builds traced (3)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="saphira-bench-trace-"))
    (work / "bench.conf").write_text(CONF)
    events_file = work / "events.json"
    command = [sys.executable, str(Path(__file__).resolve()), "serve", str(events_file)]
    cloud = Cloud(command, work / "state", free_offset(), work / "saphira.log",
                  extra_args=["--config-file", str(work / "bench.conf"), *UP_FLAGS])  # fmt: skip
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    try:
        cloud.start()
        assert cloud.proc is not None
        client, failures = TracedClient(cloud.state_dir), Failures()
        client.single("warm-up", failures, None)
        for number in range(args.runs):
            server_events(cloud.proc.pid, events_file)
            del EVENTS[:]
            took = client.single(f"traced-{number}", failures, None)
            print(f"\nbuild {number}: create->ACTIVE {took and took * 1000:.1f} ms")
            show(EVENTS + server_events(cloud.proc.pid, events_file))
        print(f"failed runs: {failures.describe()}")
    finally:
        cloud.take_away()
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        sys.exit(serve(sys.argv[2:]))
    sys.exit(main())
