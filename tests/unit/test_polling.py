"""The test helpers' waits: a refusal must hold, and a failed control voids it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.polling import stays_false


def answers(*seen: bool) -> Callable[[], bool]:
    """A probe that answers ``seen`` in turn, then its last answer for ever."""
    left = iter(seen)
    last = seen[-1]

    def probe() -> bool:
        nonlocal last
        last = next(left, last)
        return last

    return probe


def test_a_refusal_that_holds_passes() -> None:
    stays_false("port 80", answers(True, False, False, False, False), spacing=0)


def test_one_lost_probe_before_the_port_answers_again_fails() -> None:
    with pytest.raises(AssertionError, match="let through again at look 1"):
        stays_false("port 80", answers(False, True), spacing=0)


def test_a_refusal_without_a_working_control_fails() -> None:
    with pytest.raises(AssertionError, match="the control probe failed too"):
        stays_false("port 80", answers(False), control=answers(False), spacing=0)
    stays_false("port 80", answers(False), control=answers(True), spacing=0)
