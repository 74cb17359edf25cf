"""rpc.deadline: a blocking send's result, its error, or Expired at the deadline."""

from __future__ import annotations

import threading

import pytest

from saphira.rpc import deadline


def test_the_result_and_the_error_come_back_as_they_are() -> None:
    assert deadline.within(30, lambda: 42) == 42
    assert deadline.within(30, lambda: None) is None

    def fail() -> None:
        raise LookupError("no spoon")

    with pytest.raises(LookupError, match="no spoon"):
        deadline.within(30, fail)


def test_a_send_that_blocks_expires_and_is_left_to_finish() -> None:
    release, finished = threading.Event(), threading.Event()

    def blocked() -> None:
        release.wait(30)
        finished.set()

    with pytest.raises(deadline.Expired):
        deadline.within(0.05, blocked)
    release.set()
    assert finished.wait(30)
