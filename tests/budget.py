"""The long tier's time budget.

Tests marked ``long`` (fuzzing, faults under load, load itself) could run for as long
as anyone lets them, so none runs for a length of its own choosing: the tier has one
budget, ``SAPHIRA_LONG_BUDGET`` seconds (tools/run-tests sets it; DEFAULT_SECONDS
otherwise), shared equally among the long tests collected, and each sizes its work
to its share through the ``long_budget`` fixture (examples drawn, rounds of faults,
minutes of load), checking ``remaining()`` as it goes. A share too small for a test's
smallest honest run is that test's failure to report, never a reason to skip.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

import pytest

ENV = "SAPHIRA_LONG_BUDGET"
DEFAULT_SECONDS = 120.0
MARK = "long"
_COUNT = pytest.StashKey[int]()


@dataclass(frozen=True)
class Budget:
    """One long test's share of the tier, counted from when the test asked for it."""

    seconds: float
    started: float = field(default_factory=time.monotonic)

    def remaining(self) -> float:
        return max(0.0, self.started + self.seconds - time.monotonic())

    def expired(self) -> bool:
        return self.remaining() == 0.0


def tier_seconds(environ: dict[str, str] | os._Environ[str] = os.environ) -> float:
    """The whole tier's budget; a value that is not a positive number is refused."""
    raw = environ.get(ENV, "")
    if not raw:
        return DEFAULT_SECONDS
    try:
        seconds = float(raw)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:  # also refuses nan
        raise pytest.UsageError(f"{ENV} must be a positive number of seconds, not {raw!r}")
    return seconds


def count(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Remember how many long tests share the tier."""
    config.stash[_COUNT] = sum(1 for item in items if item.get_closest_marker(MARK))


def share(config: pytest.Config) -> Budget:
    """One long test's share of the tier's budget."""
    return Budget(tier_seconds() / max(1, config.stash.get(_COUNT, 1)))
