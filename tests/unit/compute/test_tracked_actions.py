"""The table's simple actions and delete on the agent, each one tracked action:
a driver step made to fail records one fault, closes the event once as an
error, and leaves the instance where the table's row sends a failure."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from saphira.clients.fake import FakeTransport
from saphira.clients.image import ImageClient
from saphira.compute.manager import ComputeManager
from saphira.domain.states import TaskState, VmState
from saphira.domain.table import SAME, TABLE, Action
from saphira.exception import InstanceInvalidState
from tests.unit.compute.agent_world import CTXT, World, world

Call = Callable[[ComputeManager, World], None]
A, S, P, U = VmState.ACTIVE, VmState.STOPPED, VmState.PAUSED, VmState.SUSPENDED

# (action, the event, the vm_state it starts from, the driver step that fails, the call)
CASES: list[tuple[Action, str, VmState, str, Call]] = [
    (Action.STOP, "compute_stop_instance", A, "power_off",
     lambda m, w: m.stop_instance(CTXT, w.instance)),
    (Action.START, "compute_start_instance", S, "power_on",
     lambda m, w: m.start_instance(CTXT, w.instance)),
    (Action.REBOOT_SOFT, "compute_reboot_instance", A, "reboot",
     lambda m, w: m.reboot_instance(CTXT, w.instance, "soft")),
    (Action.REBOOT_HARD, "compute_reboot_instance", A, "reboot",
     lambda m, w: m.reboot_instance(CTXT, w.instance, "HARD")),
    (Action.REBUILD, "compute_rebuild_instance", A, "rebuild",
     lambda m, w: m.rebuild_instance(CTXT, w.instance, "img-2", {"id": "img-2"})),
    (Action.PAUSE, "compute_pause_instance", A, "pause",
     lambda m, w: m.pause_instance(CTXT, w.instance)),
    (Action.UNPAUSE, "compute_unpause_instance", P, "unpause",
     lambda m, w: m.unpause_instance(CTXT, w.instance)),
    (Action.SUSPEND, "compute_suspend_instance", A, "suspend",
     lambda m, w: m.suspend_instance(CTXT, w.instance)),
    (Action.RESUME, "compute_resume_instance", U, "resume",
     lambda m, w: m.resume_instance(CTXT, w.instance)),
    (Action.CREATE_IMAGE, "compute_snapshot_instance", A, "snapshot",
     lambda m, w: m.snapshot_instance(CTXT, w.instance, "snap-1")),
]  # fmt: skip


def _failure_state(action: Action, start: VmState) -> VmState:
    failure = TABLE[action].failure
    return start if failure is SAME else failure


@pytest.mark.parametrize(("action", "event", "start", "step", "call"), CASES,
                         ids=[case[0].value for case in CASES])  # fmt: skip
def test_a_failed_driver_step_is_one_fault_one_error_and_the_tables_state(
    action: Action, event: str, start: VmState, step: str, call: Call
) -> None:
    w = world(start, TABLE[action].steps[0])
    w.guest()
    w.manager.images = ImageClient("http://127.0.0.1:9/image", lambda: "unused")
    w.driver.faults.fail(step, reason="hypervisor on fire")
    call(w.manager, w)

    (fault,) = w.conductor.faults
    assert "hypervisor on fire" in fault.message and fault.host == "h1"
    assert w.conductor.opened == [event]
    assert w.conductor.closed == [(event, "Error")]
    assert w.conductor.sent.count("instance_fail") == 1
    assert (w.instance.vm_state, w.instance.task_state) == (_failure_state(action, start), None)


def _image_service() -> tuple[ImageClient, FakeTransport]:
    transport = FakeTransport()
    transport.reply("DELETE", "/image/v2/images/snap-1", status=204)
    return ImageClient("http://127.0.0.1:9/image", lambda: "t", transport=transport), transport


def test_a_failed_snapshot_deletes_the_image_the_api_made_for_it() -> None:
    w = world(A, TABLE[Action.CREATE_IMAGE].steps[0])
    w.guest()
    w.manager.images, transport = _image_service()
    w.driver.faults.fail("snapshot", reason="disk unreadable")
    w.manager.snapshot_instance(CTXT, w.instance, "snap-1")

    assert [(r.method, r.url) for r in transport.sent] == [
        ("DELETE", "http://127.0.0.1:9/image/v2/images/snap-1")
    ]
    assert w.instance.vm_state is A and w.instance.task_state is None


def test_a_snapshot_that_succeeds_keeps_its_image() -> None:
    w = world(A, TABLE[Action.CREATE_IMAGE].steps[0])
    w.guest()
    w.manager.images, transport = _image_service()
    transport.reply("GET", "/image/v2/images/snap-1", json={})
    transport.reply("PATCH", "/image/v2/images/snap-1", json={})
    transport.reply("PUT", "/image/v2/images/snap-1/file", status=204)
    w.manager.snapshot_instance(CTXT, w.instance, "snap-1")

    assert "DELETE" not in [r.method for r in transport.sent]
    assert w.conductor.faults == []


def test_a_step_that_loses_its_compare_and_swap_changes_nothing_and_records_no_fault() -> None:
    w = world(A, TaskState.REBOOTING)
    w.guest()
    w.conductor.refuse["instance_advance"] = InstanceInvalidState(
        attr="task_state", instance_uuid="vm-1", state="rebooting_hard", method="reboot"
    )
    w.manager.reboot_instance(CTXT, w.instance, "SOFT")

    assert w.conductor.faults == []
    assert w.conductor.closed == [("compute_reboot_instance", "Error")]
    assert (w.instance.vm_state, w.instance.task_state) == (A, TaskState.REBOOTING)
    assert w.driver.guests["vm-1"].boots == 1  # the driver was never asked


def test_a_success_closes_the_event_with_the_state_in_one_call() -> None:
    w = world(A, TaskState.POWERING_OFF)
    w.guest()
    w.manager.stop_instance(CTXT, w.instance)

    assert w.conductor.sent == ["action_event_start", "instance_finish"]
    assert w.conductor.closed == [("compute_stop_instance", "Success")]
    assert (w.instance.vm_state, w.instance.task_state) == (S, None)


def test_a_failed_delete_is_error_with_its_claim_in_one_report() -> None:
    w = world(A, TaskState.DELETING)
    w.guest()
    w.driver.faults.fail("destroy", reason="guest will not die")
    w.manager.terminate_instance(CTXT, w.instance)

    assert w.conductor.sent == ["action_event_start", "instance_fail"]
    (fault,) = w.conductor.faults
    assert "guest will not die" in fault.message
    assert w.conductor.closed == [("compute_terminate_instance", "Error")]
    assert (w.instance.vm_state, w.instance.task_state) == (VmState.ERROR, None)
    assert not any(line.startswith("claim") for line in w.journal)
    assert not w.conductor.destroyed


def test_a_delete_whose_port_release_fails_keeps_the_claim() -> None:
    w = world(A, TaskState.DELETING)
    w.nic()
    w.guest()
    w.network.refuse_deletes = True
    w.manager.terminate_instance(CTXT, w.instance)

    assert w.journal == ["guest destroyed on h1"]
    assert len(w.conductor.faults) == 1
    assert w.conductor.closed == [("compute_terminate_instance", "Error")]
    assert w.instance.vm_state is VmState.ERROR and not w.conductor.destroyed


def test_a_delete_releases_in_order_then_destroys_the_row() -> None:
    w = world(A, TaskState.DELETING)
    vif = w.nic()
    w.guest()
    w.manager.terminate_instance(CTXT, w.instance)

    assert w.journal == [
        "guest destroyed on h1",
        f"port {vif.port_id} deleted",
        "claim of vm-1 dropped",
    ]
    assert w.conductor.sent == ["action_event_start", "action_event_finish", "instance_destroy"]
    assert w.conductor.closed == [("compute_terminate_instance", "Success")]
    assert w.conductor.destroyed and w.conductor.faults == []
