"""A compute agent's start moves on what a killed agent left mid-task (Nova's
_init_instance): a delete finishes, a build goes to ERROR with its guest, ports
and claim gone, any other task fails as its row says; idle instances stay."""

from __future__ import annotations

from typing import Any

import pytest

from saphira.compute import recover
from saphira.context import RequestContext
from saphira.domain import transitions
from saphira.domain.states import TaskState, VmState
from saphira.domain.table import Action
from saphira.objects import InstanceFault
from tests.unit.compute.agent_world import CTXT, FakeConductor, World, world

A, B = VmState.ACTIVE, VmState.BUILDING


class StartingConductor(FakeConductor):
    """The fake conductor, also answering the start's two questions."""

    def call(self, ctxt: RequestContext, method: str, **kwargs: Any) -> Any:
        if method == "instances_on_host":
            self.sent.append(method)
            return [] if self.destroyed else [self.instance]
        return super().call(ctxt, method, **kwargs)

    def _build_failed(self, fault: InstanceFault) -> None:
        self._apply(lambda: transitions.fail(Action.BUILD, self._vm))
        self._failed(fault, "compute_build_and_run_instance")
        self._instance_update({"network_info": []})


def _starting(vm_state: VmState, task_state: TaskState | None) -> World:
    w = world(vm_state, task_state)
    conductor = StartingConductor(w.conductor._client.transport, w.instance, w.journal)
    w.conductor = w.manager.conductor = conductor
    return w


@pytest.mark.parametrize("task", [TaskState.SCHEDULING, TaskState.NETWORKING, TaskState.SPAWNING])
def test_an_interrupted_build_is_error_with_its_guest_ports_and_claim_gone(
    task: TaskState,
) -> None:
    w = _starting(B, task)
    vif = w.nic()
    w.guest()

    assert recover.recover_interrupted(w.manager, CTXT) == ["vm-1"]

    assert w.journal == [
        "guest destroyed on h1",
        f"port {vif.port_id} deleted",
        "claim of vm-1 dropped",
        "cache: 0 NIC(s)",
    ]
    (fault,) = w.conductor.faults
    assert "compute service restarted during the build" in fault.message
    assert (w.instance.vm_state, w.instance.task_state) == (VmState.ERROR, None)


def test_an_interrupted_delete_is_finished() -> None:
    w = _starting(A, TaskState.DELETING)
    vif = w.nic()
    w.guest()

    assert recover.recover_interrupted(w.manager, CTXT) == ["vm-1"]

    assert w.journal == ["guest destroyed on h1", f"port {vif.port_id} deleted",
                         "claim of vm-1 dropped"]  # fmt: skip
    assert w.conductor.destroyed and w.conductor.faults == []


@pytest.mark.parametrize(
    ("start", "task", "lands"),
    [(A, TaskState.POWERING_OFF, A), (A, TaskState.REBOOTING_HARD, VmState.ERROR),
     (VmState.STOPPED, TaskState.POWERING_ON, VmState.STOPPED)],
)  # fmt: skip
def test_any_other_interrupted_task_fails_as_its_row_says(
    start: VmState, task: TaskState, lands: VmState
) -> None:
    w = _starting(start, task)
    w.guest()

    assert recover.recover_interrupted(w.manager, CTXT) == ["vm-1"]

    (fault,) = w.conductor.faults
    assert "compute service restarted during the" in fault.message
    assert (w.instance.vm_state, w.instance.task_state) == (lands, None)
    assert w.conductor.closed == [(recover.EVENT, "Error")]
    assert w.journal == []  # the guest is left as it is


def test_an_idle_instance_is_left_alone() -> None:
    w = _starting(A, None)
    w.guest()

    assert recover.recover_interrupted(w.manager, CTXT) == []
    assert w.conductor.sent == ["instances_on_host"] and w.journal == []


def test_one_instance_that_cannot_be_recovered_is_logged_not_raised() -> None:
    w = _starting(B, TaskState.SPAWNING)
    w.conductor.refuse["build_failed"] = RuntimeError("conductor gone")

    assert recover.recover_interrupted(w.manager, CTXT) == []
