"""The watchdog judges hosts only over a window in which the bus carried beats."""

from __future__ import annotations

from saphira.conductor.buswatch import BusWatch

RECONNECT = 5.5


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def pass_beating(self, watch: BusWatch, seconds: float, every: float = 1.0) -> None:
        for _ in range(round(seconds / every)):
            self.now += every
            watch.beat()


def _watch(clock: Clock, interval: float = 1.0) -> BusWatch:
    return BusWatch(interval=interval, reconnect=RECONNECT, clock=clock)


def test_steady_only_after_the_window_from_start() -> None:
    clock = Clock()
    watch = _watch(clock)
    assert not watch.steady_for(4)
    clock.pass_beating(watch, 4)
    assert watch.steady_for(4)


def test_a_beat_in_flight_during_an_outage_makes_it_unsteady_at_once() -> None:
    clock = Clock()
    watch = _watch(clock)
    clock.pass_beating(watch, 10)
    clock.now += 2.1  # the broker went away: no beat comes back
    assert not watch.steady_for(4)


def test_after_an_outage_the_window_waits_for_the_agents_to_reconnect() -> None:
    clock = Clock()
    watch = _watch(clock)
    clock.pass_beating(watch, 10)
    clock.now += 8  # down for a while, then the blocked beat returns
    watch.beat()
    assert not watch.steady_for(4)
    clock.pass_beating(watch, 9)
    assert not watch.steady_for(4)  # 9 s < 4 s + the agents' reconnect allowance
    clock.pass_beating(watch, 1)
    assert watch.steady_for(4)


def test_beats_within_the_grace_are_no_outage() -> None:
    clock = Clock()
    watch = _watch(clock, interval=10.0)
    clock.pass_beating(watch, 66, every=11)  # max_gap = 10 + 1
    assert watch.steady_for(60)
