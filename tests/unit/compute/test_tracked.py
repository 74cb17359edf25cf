"""TrackedAction itself: undos newest first (one failing does not stop the
rest), nothing recorded for an instance that is gone, and a failure report
the conductor refuses is logged, never raised into the agent."""

from __future__ import annotations

import pytest

from saphira import exception
from saphira.compute.tracked import Failed, Tracked, TrackedAction
from saphira.domain.states import TaskState, VmState
from saphira.domain.table import Action
from tests.unit.compute.agent_world import CTXT, World, world

EVENT = "compute_stop_instance"


def _stop(w: World) -> TrackedAction:
    return TrackedAction(w.conductor, CTXT, w.instance, Action.STOP, EVENT, "h1")


def _boom() -> None:
    raise RuntimeError("undo failed")


def test_undos_run_newest_first_and_a_failing_one_stops_none() -> None:
    undone: list[str] = []
    track = Tracked("vm-1", Action.RESIZE, "h1")
    track.done("claim", lambda: undone.append("claim"))
    track.done("ports", _boom)
    track.done("guest", lambda: undone.append("guest"))
    track.forget("nothing-such")
    assert track.steps_done == ["claim", "ports", "guest"]
    track.unwind()
    assert undone == ["guest", "claim"] and track.steps_done == []


def test_a_failure_undoes_then_reports_once() -> None:
    w = world(VmState.ACTIVE, TaskState.POWERING_OFF)
    track = _stop(w)
    track.done("one", lambda: w.journal.append("one undone"))
    track.done("two", lambda: w.journal.append("two undone"))

    def work() -> None:
        w.journal.append("worked")
        raise exception.SaphiraError("step 3 failed")

    failed = track.run(work)
    assert isinstance(failed, Failed) and "step 3" in str(failed.error)
    assert w.journal == ["worked", "two undone", "one undone"]
    assert w.conductor.sent == ["action_event_start", "instance_fail"]
    assert [f.message for f in w.conductor.faults] == ["step 3 failed"]
    assert w.conductor.closed == [(EVENT, "Error")]


def test_an_instance_that_is_gone_gets_its_undos_and_no_report() -> None:
    w = world(VmState.ACTIVE, TaskState.POWERING_OFF)
    track = _stop(w)
    track.done("claim", lambda: w.journal.append("claim undone"))

    def work() -> None:
        raise exception.InstanceNotFound(instance_id="vm-1")

    assert isinstance(track.run(work), Failed)
    assert w.journal == ["claim undone"]
    assert w.conductor.sent == ["action_event_start"] and w.conductor.closed == []


def test_a_refused_report_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    w = world(VmState.ACTIVE, TaskState.POWERING_OFF)
    w.conductor.refuse["instance_fail"] = exception.InstanceInvalidState(
        attr="vm_state", instance_uuid="vm-1", state="deleted", method="stop"
    )

    def work() -> None:
        raise exception.SaphiraError("power off failed")

    assert isinstance(_stop(w).run(work), Failed)
    assert "failure not recorded" in caplog.text
    assert w.conductor.faults == []


def test_a_success_returns_what_the_work_made() -> None:
    w = world(VmState.ACTIVE, TaskState.POWERING_OFF)
    assert _stop(w).run(lambda: 42) == 42
    assert w.conductor.closed == [(EVENT, "Success")]
