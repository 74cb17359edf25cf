"""Built metadata kept per instance for a short time, bounded in size.

Nova keeps each instance's metadata 15 s (``[api] metadata_cache_expiration``)
because cloud-init asks a dozen paths in a row. Here the table is also
bounded (least recently used out first) and a build runs outside the
table's lock: one instance's slow database read makes only the requests
for that instance wait, and they wait for the one build in flight instead of
each starting their own.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

V = TypeVar("V")


@dataclass
class _Flight(Generic[V]):
    """A build in progress: later askers wait on it rather than build again."""

    done: threading.Event = field(default_factory=threading.Event)
    value: V | None = None
    error: BaseException | None = None


class TTLCache(Generic[V]):
    def __init__(self, ttl: float, size: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self.size = size
        self.clock = clock
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, tuple[float, V]] = OrderedDict()
        self._flights: dict[str, _Flight[V]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str, build: Callable[[], V]) -> V:
        """The cached value of ``key`` if fresh, else ``build()``'s (errors not cached)."""
        with self._lock:
            hit = self._fresh(key)
            if hit is not None:
                return hit
            flight = self._flights.get(key)
            leader = flight is None
            if flight is None:
                flight = self._flights[key] = _Flight()
        if not leader:
            flight.done.wait()
            if flight.error is not None:
                raise flight.error
            assert flight.value is not None
            return flight.value
        return self._lead(key, flight, build)

    def forget(self, key: str) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def _fresh(self, key: str) -> V | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry[0] <= self.clock():
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return entry[1]

    def _lead(self, key: str, flight: _Flight[V], build: Callable[[], V]) -> V:
        try:
            flight.value = value = build()
        except BaseException as error:
            flight.error = error
            raise
        finally:
            with self._lock:
                del self._flights[key]
                if flight.error is None and self.ttl > 0:
                    self._store(key, flight.value)
            flight.done.set()
        return value

    def _store(self, key: str, value: V | None) -> None:
        assert value is not None
        self._entries[key] = (self.clock() + self.ttl, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)
