"""A conductor handler runs again while the database is unreachable, within its window."""

from __future__ import annotations

import pytest
from sqlalchemy import exc

from saphira.conductor.outage import waits_out_outages
from saphira.exception import InstanceInvalidState


def _down() -> exc.OperationalError:
    return exc.OperationalError("SELECT 1", {}, ConnectionRefusedError("connection refused"))


class Handler:
    """A handler that fails with ``failures`` in turn, then doubles its argument."""

    __name__ = "handler"

    def __init__(self, failures: list[BaseException]) -> None:
        self.failures, self.calls = failures, 0

    def __call__(self, value: int) -> int:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return value * 2


def test_a_restarting_database_is_waited_out_with_growing_pauses() -> None:
    pauses: list[float] = []
    handler = Handler([_down(), _down(), _down()])
    assert waits_out_outages(handler, sleep=pauses.append)(21) == 42
    assert handler.calls == 4 and pauses == [0.5, 1.0, 2.0]


def test_an_outage_longer_than_the_window_is_the_callers_error() -> None:
    handler = Handler([_down() for _ in range(100)])
    with pytest.raises(exc.OperationalError):
        waits_out_outages(handler, window=0.0, sleep=lambda _: None)(1)
    assert handler.calls == 1


def test_any_other_error_is_raised_at_once() -> None:
    lost = InstanceInvalidState(attr="vm_state", instance_uuid="u", state="error", method="build")
    handler = Handler([lost])
    with pytest.raises(InstanceInvalidState):
        waits_out_outages(handler, sleep=lambda _: pytest.fail("slept"))(1)
    assert handler.calls == 1
