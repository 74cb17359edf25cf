"""One cheap change feed per session: the server list's changes, pushed to its pages.

While at least one page of a session listens, one thread reads
``GET /servers/detail?changes-since=<cursor>`` with the session's token at
most once per ``[dashboard] feed_interval`` (the first read lists every
server) and hands the rows that changed to every listener; the cursor is the
latest ``updated`` the API returned, so a quiet project costs one small
answer a second, however many rows or tabs it has. Nothing polls per row.
The thread ends once nobody has listened for ``linger`` seconds.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from saphira.dashboard.errors import explain
from saphira.dashboard.rows import ServerRow

LOG = logging.getLogger(__name__)
Fetch = Callable[[str | None], list[ServerRow]]  # changes since a cursor; None: all


@dataclass(frozen=True)
class Event:
    kind: str  # "row", "problem" (said on the page; the feed goes on) or "end"
    row: ServerRow | None = None
    message: str = ""


END = Event("end")


@dataclass
class Snapshot:
    """The latest row of each server seen, and the cursor of the next read."""

    rows: dict[str, ServerRow] = field(default_factory=dict)
    cursor: str | None = None

    def apply(self, rows: list[ServerRow]) -> list[ServerRow]:
        """The rows that differ from what was seen (new, changed or deleted)."""
        changed = [r for r in rows if self.rows.get(r.id) != r]
        for r in changed:
            self.rows[r.id] = r
        stamps = [r.updated for r in rows if r.updated]
        if stamps:
            self.cursor = max([*stamps, self.cursor or ""])
        return changed

    def since(self, moment: str) -> list[ServerRow]:
        """Rows updated at or after ``moment`` (what a page drawn at ``moment`` may not
        have shown). The stamps have whole seconds: a server built within the second its
        page was drawn changed after the page's read and has the page's own stamp (the
        API's changes-since is inclusive for the same reason); a row sent again is only
        drawn again."""
        return sorted((r for r in self.rows.values() if r.updated >= moment), key=_when)


def _when(r: ServerRow) -> str:
    return r.updated


class Feed:
    def __init__(self, fetch: Fetch, interval: float, linger: float = 10.0) -> None:
        self.fetch = fetch
        self.interval = interval
        self.linger = linger
        self.snapshot = Snapshot()
        self._listeners: list[queue.SimpleQueue[Event]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._primed = threading.Event()

    def listen(self, since: str) -> queue.SimpleQueue[Event]:
        """A new listener, given first what changed after ``since``."""
        listener: queue.SimpleQueue[Event] = queue.SimpleQueue()
        with self._lock:
            self._listeners.append(listener)
            if self._thread is None or not self._thread.is_alive():
                self._stop.clear()
                self._thread = threading.Thread(target=self._run, name="dashboard-feed")
                self._thread.start()
        self._primed.wait(self.interval * 5)
        with self._lock:
            for r in self.snapshot.since(since):
                listener.put(Event("row", r))
        return listener

    def leave(self, listener: queue.SimpleQueue[Event]) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def stop(self) -> None:
        """End the thread and every listener's stream (logout, session end, shutdown)."""
        self._stop.set()
        with self._lock:
            listeners, self._listeners = self._listeners, []
            thread = self._thread
        for listener in listeners:
            listener.put(END)
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=self.interval + 2)

    def poll_once(self) -> None:
        """One read of the changes, handed to the listeners."""
        try:
            rows = self.fetch(self.snapshot.cursor)
        except Exception as error:
            self._publish([self._failed(error)])
            return
        with self._lock:
            changed = self.snapshot.apply(rows)
        self._publish([Event("row", r) for r in changed])

    def _failed(self, error: Exception) -> Event:
        """What the listeners are told of a failed read; an expired token ends the feed."""
        problem = explain(error)
        if problem is None:
            LOG.exception("the change feed's read failed")
            return Event("problem", message="The live view stopped updating; it will retry.")
        if problem.needs_login:
            self._stop.set()
            return END
        return Event("problem", message=problem.message)

    def _publish(self, events: list[Event]) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            for event in events:
                listener.put(event)

    def _run(self) -> None:
        idle = 0.0
        while not self._stop.is_set():
            self.poll_once()
            self._primed.set()
            with self._lock:  # the decision to end and the listener check are one step
                idle = 0.0 if self._listeners else idle + self.interval
                if idle >= self.linger:
                    self._thread = None
                    return
            self._stop.wait(self.interval)
        with self._lock:
            self._thread = None

    @property
    def ended(self) -> bool:
        return self._stop.is_set()
