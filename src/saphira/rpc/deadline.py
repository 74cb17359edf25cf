"""A blocking send that must not outlast its caller's timeout.

oslo.messaging's RabbitMQ driver retries a publish forever while the broker
is away (``retry=None``, what every stub uses), and the pooled connection's
heartbeat thread holds the connection's lock while it reconnects, so not
even a bounded ``retry`` bounds the wait. ``within`` runs the send on a
thread of its own and stops waiting at the deadline; the send goes on and,
once the broker is back, may still deliver (as a call that timed out in
OpenStack may still have run). A broker that is down for longer than the
timeout therefore costs one parked thread per call until it returns.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Expired(Exception):
    """Nothing came back within the deadline."""


class _Outcome(Generic[T]):
    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: tuple[T] | None = None  # a tuple, since T may be None
        self.error: BaseException | None = None

    def run(self, send: Callable[[], T]) -> None:
        try:
            self.result = (send(),)
        except BaseException as error:  # handed to the waiting caller
            self.error = error
        finally:
            self.done.set()


def within(seconds: float, send: Callable[[], T], name: str = "rpc-call") -> T:
    """``send()``'s result or exception, or Expired after ``seconds``."""
    outcome: _Outcome[T] = _Outcome()
    threading.Thread(target=outcome.run, args=(send,), name=name, daemon=True).start()
    if not outcome.done.wait(seconds):
        raise Expired(seconds)
    if outcome.result is None:
        assert outcome.error is not None
        raise outcome.error
    return outcome.result[0]
