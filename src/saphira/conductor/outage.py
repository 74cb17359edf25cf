"""The conductor waits out a short database outage instead of losing a build.

A report the compute agent sends while the database restarts (``build_started``,
``build_networked``, ``instance_finish``...) failed at once: the agent took the
build for failed and handed it back for a reschedule, whose cast the conductor
then also failed on and dropped, so the server stayed in BUILD with a task
state for good. Each of these handlers is one transaction (or, for the
reschedule, a claim that replaces the consumer's allocations and then one),
so running it again after a connection error writes nothing twice; it is run
again, with a growing pause, for up to ``WINDOW`` seconds, which is well
inside the caller's ``rpc_response_timeout`` (60 s by default).
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from sqlalchemy import exc

LOG = logging.getLogger(__name__)
WINDOW = 40.0
FIRST_PAUSE = 0.5
LONGEST_PAUSE = 5.0
# What a database that is down or restarting raises: a refused or dropped connection.
OUTAGE = (exc.OperationalError, exc.InterfaceError)

P = ParamSpec("P")
R = TypeVar("R")


def waits_out_outages(
    handler: Callable[P, R], *, window: float = WINDOW, sleep: Callable[[float], None] = time.sleep
) -> Callable[P, R]:
    """``handler`` run again while the database is unreachable, for up to ``window`` s."""

    @functools.wraps(handler)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        deadline = time.monotonic() + window
        pause = FIRST_PAUSE
        while True:
            try:
                return handler(*args, **kwargs)
            except OUTAGE as error:
                if time.monotonic() + pause > deadline:
                    raise
                LOG.warning("%s: the database is unreachable (%s); again in %.1f s",
                            handler.__name__, type(error.orig).__name__, pause)  # fmt: skip
                sleep(pause)
                pause = min(pause * 2, LONGEST_PAUSE)

    return run
