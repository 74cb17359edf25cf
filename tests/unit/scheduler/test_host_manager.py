"""When the scheduler's host states are read again: fresh ones reused, slightly stale ones
refreshed behind a decision, older ones (an idle scheduler) read before it."""

from __future__ import annotations

import threading

import pytest

from saphira.conf import make_conf
from saphira.db.directory import CellDirectory
from saphira.scheduler.host_manager import HostManager


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> tuple[HostManager, Clock, list[str]]:
    """A manager over no database (ttl 1 s) whose reads are recorded by thread name."""
    conf = make_conf()
    conf([])
    monkeypatch.setattr(CellDirectory, "shared", classmethod(lambda cls, c: None))
    clock, reads = Clock(), list[str]()
    manager = HostManager(conf, clock=clock)
    monkeypatch.setattr(manager, "_refresh", lambda: reads.append(threading.current_thread().name))
    return manager, clock, reads


def test_the_first_call_reads_and_fresh_states_are_reused(
    counted: tuple[HostManager, Clock, list[str]],
) -> None:
    manager, clock, reads = counted
    manager.hosts()
    clock.now += 0.5
    manager.hosts()
    assert reads == ["MainThread"]


def test_states_a_little_stale_are_refreshed_in_the_background(
    counted: tuple[HostManager, Clock, list[str]],
) -> None:
    manager, clock, reads = counted
    manager.hosts()
    clock.now += 1.5
    manager.hosts()
    assert manager._refresher is not None
    manager._refresher.join(timeout=10)
    assert reads == ["MainThread", "scheduler-host-states"]


def test_an_idle_schedulers_states_are_read_before_the_decision(
    counted: tuple[HostManager, Clock, list[str]],
) -> None:
    """A node that joined while the scheduler was idle is seen by the next decision."""
    manager, clock, reads = counted
    manager.hosts()
    clock.now += 120
    manager.hosts()
    assert reads == ["MainThread", "MainThread"]
