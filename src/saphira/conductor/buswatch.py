"""Whether the message bus has carried this conductor's heartbeats steadily.

The watchdog reads a host whose heartbeat is older than service_down_time
as dead. While the broker is away (a RabbitMQ restart) no agent can beat,
and every host would look dead: the watchdog must only judge a window in
which the bus worked. The conductor sends its own heartbeat through the bus
(to any conductor); ``BusWatch`` notes each one that came back. A gap
between two beats longer than ``max_gap`` is an outage. The bus counts as
steady ``window`` seconds after the conductor's start, and after an outage
``window`` plus ``reconnect`` seconds after the beat that ended it: the
agents' connections retry on their own schedule (up to
[oslo_messaging_rabbit] rabbit_interval_max + kombu_reconnect_delay apart)
and may come back that much later than the conductor's.
"""

from __future__ import annotations

import time
from collections.abc import Callable

# Beyond the interval itself: a beat's own round trip on a loaded host. It
# must stay well under service_down_time - report_interval, so the outage is
# seen before the silent hosts are.
GRACE = 1.0


class BusWatch:
    def __init__(
        self, interval: float, reconnect: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_gap = interval + GRACE
        self.reconnect = reconnect
        self._clock = clock
        self.last_beat = self.steady_since = clock()
        self._after_outage = False

    def beat(self) -> None:
        """A heartbeat made the round trip through the bus."""
        now = self._clock()
        if now - self.last_beat > self.max_gap:
            self.steady_since, self._after_outage = now, True
        self.last_beat = now

    def steady_for(self, window: float) -> bool:
        """No gap now, and none in the last ``window`` seconds (plus ``reconnect`` after one)."""
        now = self._clock()
        needed = window + (self.reconnect if self._after_outage else 0.0)
        return now - self.last_beat <= self.max_gap and now - self.steady_since >= needed
