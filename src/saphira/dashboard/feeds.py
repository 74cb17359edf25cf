"""The live feeds of this process, one per session and project."""

from __future__ import annotations

import threading
from collections.abc import Callable

from saphira.dashboard.feed import Feed, Fetch


class Feeds:
    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._table: dict[str, Feed] = {}
        self._lock = threading.Lock()
        self._closed = False

    def get(self, key: str, fetch: Callable[[], Fetch]) -> Feed | None:
        """The feed of ``key`` (made on first use); None once the process stops."""
        with self._lock:
            if self._closed:
                return None
            feed = self._table.get(key)
            if feed is None or feed.ended:
                feed = self._table[key] = Feed(fetch(), self.interval)
            return feed

    def drop(self, prefix: str) -> None:
        """Stop every feed of a session (its key's ``<session id>/`` prefix)."""
        with self._lock:
            gone = [k for k in self._table if k.startswith(prefix)]
            feeds = [self._table.pop(k) for k in gone]
        for feed in feeds:
            feed.stop()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            feeds = list(self._table.values())
            self._table.clear()
        for feed in feeds:
            feed.stop()
