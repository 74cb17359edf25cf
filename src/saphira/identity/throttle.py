"""Failed password logins per client address: a sliding window in bounded memory.

Not Keystone's (Keystone has only the per-user lockout); the first line against
one address guessing many users' passwords. It lives in the identity process's
memory: a failed login costs no database write, and when several identity
processes serve one cloud each counts its own share, which only multiplies the
limit by the number of processes. The per-user lockout, the one that must hold
across processes, is in the database (``saphira.identity.lockout``).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable


class SourceThrottle:
    """At most ``attempts`` failures per ``window`` seconds per source; 0 attempts: off."""

    def __init__(
        self,
        attempts: int,
        window: float,
        capacity: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.attempts = attempts
        self.window = window
        self.capacity = capacity
        self._clock = clock
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def _recent(self, source: str, now: float) -> deque[float] | None:
        times = self._failures.get(source)
        while times and times[0] <= now - self.window:
            times.popleft()
        if times is not None and not times:
            del self._failures[source]
            return None
        return times

    def retry_after(self, source: str) -> float | None:
        """Seconds until ``source`` may try again, or None if it may now."""
        if not self.attempts:
            return None
        with self._lock:
            now = self._clock()
            times = self._recent(source, now)
            if times is None or len(times) < self.attempts:
                return None
            return max(times[0] + self.window - now, 0.0)

    def failed(self, source: str) -> None:
        if not self.attempts:
            return
        with self._lock:
            now = self._clock()
            times = self._recent(source, now)
            if times is None:
                times = self._failures[source] = deque(maxlen=self.attempts)
            times.append(now)
            self._failures.move_to_end(source)
            while len(self._failures) > self.capacity:
                self._failures.popitem(last=False)

    def __len__(self) -> int:
        return len(self._failures)
