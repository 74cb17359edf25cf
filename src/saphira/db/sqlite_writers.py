"""One writer at a time per SQLite file, queued in process instead of polling.

SQLite admits one write transaction per database; a second writer waits in
its busy handler, which sleeps and retries (1, 2, 5 ... 100 ms). With the
whole control plane in one process (API, conductor, placement, agents), a
burst of creates spent most of its time in those sleeps. Writers of one file
in this process now queue on a lock taken just before the first write of a
transaction and released by its commit, rollback or close, so the next one
starts the moment the previous one ends. Readers never take it (WAL lets them
run beside the writer). Other processes still meet SQLite's own lock and busy
timeout, and a wait here is bounded by the same timeout, after which SQLite
decides as before; a thread that already writes to the file on another
connection does not queue behind itself.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from typing import Any

WAIT = 30.0  # seconds; the engine's busy timeout
_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "BEGIN IMMEDIATE", "BEGIN EXCLUSIVE")


class _FileLock:
    """A lock with its owner thread, so a thread never waits for itself."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.owner: int | None = None


_locks: dict[str, _FileLock] = {}
_guard = threading.Lock()


def _lock_for(database: object) -> _FileLock | None:
    name = os.fsdecode(database) if isinstance(database, str | bytes | os.PathLike) else ""
    if not name or name == ":memory:" or name.startswith("file:") or "mode=memory" in name:
        return None
    key = os.path.realpath(name)
    with _guard:
        return _locks.setdefault(key, _FileLock())


class QueuedWriterConnection(sqlite3.Connection):
    """sqlite3's connection, releasing the file's writer lock when a transaction ends."""

    def __init__(self, database: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(database, *args, **kwargs)
        self.file_lock = _lock_for(database)
        self.holding = False

    def before_write(self) -> None:
        """Queue for the file before a transaction's first write."""
        file_lock = self.file_lock
        if file_lock is None or self.holding or file_lock.owner == threading.get_ident():
            return
        if file_lock.lock.acquire(timeout=WAIT):
            file_lock.owner = threading.get_ident()
            self.holding = True

    def _release(self) -> None:
        if self.holding and self.file_lock is not None:
            self.holding = False
            self.file_lock.owner = None
            self.file_lock.lock.release()

    def commit(self) -> None:
        try:
            super().commit()
        finally:
            self._release()

    def rollback(self) -> None:
        try:
            super().rollback()
        finally:
            self._release()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._release()


def before_cursor_execute(
    conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool
) -> None:
    """SQLAlchemy's hook: a write statement queues its connection for the file."""
    dbapi = getattr(conn.connection, "dbapi_connection", None)
    if (
        isinstance(dbapi, QueuedWriterConnection)
        and not dbapi.holding
        and statement.lstrip()[:15].upper().startswith(_WRITES)
    ):
        dbapi.before_write()
