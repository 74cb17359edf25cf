"""Counts of what a process sends across its boundaries: RPC calls and casts,
HTTP requests to other services, database write transactions.

``bench/`` reads them to say what one server build costs (issue 11). RPC is
counted where every stub sends (``saphira.rpc.client.RPCAPI``), always: an
increment under a lock beside a JSON round trip. HTTP and database writes are
counted by hooks that ``install()`` puts at the lowest level every client
shares, so the counts survive a move of the clients themselves:

* HTTP: ``requests.adapters.HTTPAdapter.send``, which every ``requests``
  call goes through (a ``Session``, ``requests.get``, keystoneauth and
  openstacksdk alike), one count per request on the wire (a redirect is a
  second request).
* Writes: SQLAlchemy's events on the ``Engine`` class (every engine, made
  before or after), one count per committed transaction that ran an
  INSERT, UPDATE, DELETE or REPLACE, however its session was opened;
  transactions that only read are not counted, and a rolled-back writer is
  counted apart.

``install()`` is for a process that is measured (the benchmark's
all-in-one); nothing in the product calls it, so a cloud's own requests and
statements run without the hooks.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests.adapters
from requests import PreparedRequest
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

# The table a write statement writes (SQLite's INSERT OR REPLACE too).
_WRITTEN = re.compile(
    r"\s*(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE|DELETE\s+FROM|REPLACE\s+INTO)\s+[`\"]?(\w+)",
    re.IGNORECASE,
)
_WROTE = "saphira_tally_wrote"  # key in a Connection's info: the tables this transaction wrote
_ID = re.compile(r"[0-9a-fA-F]{8}-?([0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}")  # uuids, dashed or not


@dataclass(frozen=True)
class Counts:
    """One reading of the counters (or the difference of two)."""

    rpc_calls: int = 0  # round trips: sent and waited for
    rpc_casts: int = 0  # sent to one server, not waited for
    rpc_fanouts: int = 0  # sent to every server of a topic
    http_requests: int = 0
    write_transactions: int = 0  # committed
    write_rollbacks: int = 0  # wrote, then rolled back

    def __sub__(self, other: Counts) -> Counts:
        return Counts(**{name: value - getattr(other, name) for name, value in self.items()})

    def items(self) -> list[tuple[str, int]]:
        return [(f.name, getattr(self, f.name)) for f in dataclasses.fields(self)]


class Tally:
    """Thread-safe counters named as the fields of ``Counts``, each also by what was
    sent ("rpc_calls conductor.instance_advance", "http_requests PUT :8778/allocations/{id}",
    "write_transactions instance_actions_events instances": the tables written)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values = dict.fromkeys((f.name for f in dataclasses.fields(Counts)), 0)
        self._details: Counter[str] = Counter()

    def add(self, name: str, detail: str | None = None) -> None:
        with self._lock:
            self._values[name] += 1
            if detail is not None:
                self._details[f"{name} {detail}"] += 1

    def read(self) -> Counts:
        with self._lock:
            return Counts(**self._values)

    def details(self) -> dict[str, int]:
        with self._lock:
            return dict(self._details)


TALLY = Tally()  # this process's
_install_lock = threading.Lock()
_installed: list[Tally] = []


def install(tally: Tally = TALLY) -> None:
    """Count every HTTP request and write transaction of this process into ``tally`` (once)."""
    with _install_lock:
        if not _installed:
            count_http(requests.adapters.HTTPAdapter, tally)
            count_writes(Engine, tally)
            _installed.append(tally)


def count_http(adapter: type[requests.adapters.HTTPAdapter], tally: Tally) -> None:
    """Count each request sent through ``adapter`` (or a subclass that calls its send)."""
    send = adapter.send

    def counted(
        self: requests.adapters.HTTPAdapter, request: PreparedRequest, *args: Any, **kwargs: Any
    ) -> Any:
        tally.add("http_requests", _target(request))
        return send(self, request, *args, **kwargs)

    adapter.send = counted  # type: ignore[method-assign]


def _target(request: PreparedRequest) -> str:
    return target(request.method or "", request.url or "")


def target(method: str, url: str) -> str:
    """``METHOD :port/path`` with ids as ``{id}`` and no query: what kind of request."""
    parts = urlsplit(url)
    path = "/".join("{id}" if _ID.fullmatch(part) else part for part in parts.path.split("/"))
    return f"{method} :{parts.port}{path}"


def count_writes(target: Engine | type[Engine], tally: Tally) -> None:
    """Count the write transactions of one engine, or of every engine (the class)."""

    def before_cursor_execute(conn: Connection, _c: Any, statement: str, *_: Any) -> None:
        written = _WRITTEN.match(statement)
        if written:
            conn.info.setdefault(_WROTE, set()).add(written.group(1).lower())

    def ended(conn: Connection, name: str) -> None:
        tables = conn.info.pop(_WROTE, None)
        if tables:
            tally.add(name, " ".join(sorted(tables)))

    def commit(conn: Connection) -> None:
        ended(conn, "write_transactions")

    def rollback(conn: Connection) -> None:
        ended(conn, "write_rollbacks")

    event.listen(target, "before_cursor_execute", before_cursor_execute)
    event.listen(target, "commit", commit)
    event.listen(target, "rollback", rollback)
