"""The build's wait for network-vif-plugged: each port's event, a failure, a timeout."""

from __future__ import annotations

import threading
import time

from saphira.compute.events import VIF_PLUGGED, InstanceEvents


def test_waits_until_every_port_is_plugged() -> None:
    events = InstanceEvents()
    waiter = events.expect("vm", [(VIF_PLUGGED, "p1"), (VIF_PLUGGED, "p2")])
    assert events.complete("vm", VIF_PLUGGED, "p1", "completed")

    def later() -> None:
        time.sleep(0.05)
        events.complete("vm", VIF_PLUGGED, "p2", "completed")

    thread = threading.Thread(target=later)
    thread.start()
    outcome = waiter.wait(10)
    thread.join()
    assert outcome.ok  # ended by the event: a timeout would have left p2 missing


def test_a_timeout_names_the_missing_ports_and_a_failure_ends_the_wait() -> None:
    events = InstanceEvents()
    waiter = events.expect("vm", [(VIF_PLUGGED, "p1"), (VIF_PLUGGED, "p2")])
    outcome = waiter.wait(0.05)
    assert outcome.missing == [(VIF_PLUGGED, "p1"), (VIF_PLUGGED, "p2")] and not outcome.ok
    events.complete("vm", VIF_PLUGGED, "p2", "failed")
    outcome = waiter.wait(10)
    assert outcome.failed == [(VIF_PLUGGED, "p2")] and outcome.missing == [(VIF_PLUGGED, "p1")]


def test_events_nobody_waits_for_are_dropped() -> None:
    events = InstanceEvents()
    assert not events.complete("vm", VIF_PLUGGED, "p1", "completed")
    waiter = events.expect("vm", [(VIF_PLUGGED, "p1")])
    assert not events.complete("vm", VIF_PLUGGED, "other-port", "completed")
    assert not events.complete("other-vm", VIF_PLUGGED, "p1", "completed")
    waiter.close()
    assert not events.complete("vm", VIF_PLUGGED, "p1", "completed")
