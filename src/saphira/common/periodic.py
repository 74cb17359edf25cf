"""A daemon thread that runs a task on a fixed interval, or sooner when woken.

Heartbeats, inventory reports, power-state reconciles and the conductor's
stuck-build watchdog are all this shape; a failing run is logged and the
next one still happens, since one bad round must not end a service's timers.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

LOG = logging.getLogger(__name__)
STOP_TIMEOUT = 10.0  # seconds; a heartbeat is one RPC call, well under this


class Periodic(threading.Thread):
    """Run ``task`` every ``interval`` seconds (or when woken) until stopped."""

    def __init__(self, name: str, interval: float, task: Callable[[], Any]) -> None:
        super().__init__(name=name, daemon=True)
        self.interval, self.task = interval, task
        self.stopped, self.wake = threading.Event(), threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            try:
                self.task()
            except Exception:
                LOG.exception("%s failed", self.name)
            self.wake.wait(self.interval)
            self.wake.clear()

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """End the loop and wait (up to ``timeout``) for a run in progress to finish.

        Waiting is what makes a service's stop clean: no task still writes
        through a transport or database its owner is about to close.
        """
        self.stopped.set()
        self.wake.set()
        if self.is_alive() and self is not threading.current_thread():
            self.join(timeout)
