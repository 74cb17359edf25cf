"""The failed-login throttle per source and Keystone's per-user lockout rule."""

from __future__ import annotations

import datetime as dt

from saphira.db.identity.models import User
from saphira.identity.lockout import Lockout
from saphira.identity.throttle import SourceThrottle


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_source_is_refused_after_its_budget_until_the_window_moves() -> None:
    clock = Clock()
    throttle = SourceThrottle(3, 60, 100, clock)
    for _ in range(3):
        assert throttle.retry_after("10.0.0.1") is None
        throttle.failed("10.0.0.1")
        clock.now += 1
    assert throttle.retry_after("10.0.0.1") == 57.0  # the oldest failure leaves at 1060
    assert throttle.retry_after("10.0.0.2") is None  # others are not affected
    clock.now = 1060.0
    assert throttle.retry_after("10.0.0.1") is None


def test_the_table_stays_bounded_forgetting_the_stalest_source() -> None:
    clock = Clock()
    throttle = SourceThrottle(1, 60, 2, clock)
    for source in ("a", "b", "c"):
        throttle.failed(source)
    assert len(throttle) == 2
    assert throttle.retry_after("a") is None
    assert throttle.retry_after("c") is not None


def test_zero_attempts_turns_the_throttle_off() -> None:
    throttle = SourceThrottle(0, 60, 2)
    for _ in range(50):
        throttle.failed("a")
    assert throttle.retry_after("a") is None and len(throttle) == 0


def _user(count: int | None, at: dt.datetime | None) -> User:
    return User(id="u", failed_auth_count=count, failed_auth_at=at)


def test_lockout_after_n_failures_for_the_duration() -> None:
    now = dt.datetime(2026, 1, 1, 12, 0, 0)
    rule = Lockout(10, 60)
    assert not rule.locked(_user(None, None), now)
    assert not rule.locked(_user(9, now), now)
    assert rule.locked(_user(10, now - dt.timedelta(seconds=59)), now)
    assert not rule.locked(_user(10, now - dt.timedelta(seconds=60)), now)
    assert Lockout(10, None).locked(_user(10, now - dt.timedelta(days=9)), now)
    assert not Lockout(None, 60).locked(_user(99, now), now)
    assert not Lockout(0, 60).locked(_user(99, now), now)
