"""Turn the table into checks and compare-and-swap requests.

A ``Transition`` is what a writer hands to the database: the states the row
must be in (``expected_*``) and the states to write. The API calls
``begin``; the conductor calls ``advance`` between steps and ``finish`` or
``fail`` at the end, on the agent's behalf; ``system`` is the move of a
system event (a reschedule, the watchdog, the power sync...). A stale caller (say, a soft
reboot overtaken by a hard one) loses its compare-and-swap and gets a 409,
never a silent overwrite.
"""

from __future__ import annotations

import dataclasses

from saphira.domain.states import PowerState, TaskState, VmState
from saphira.domain.table import (
    OBSERVED,
    OWNER,
    PRIOR,
    SAME,
    SYSTEM,
    TABLE,
    Action,
    Event,
    Rule,
)
from saphira.exception import InstanceInvalidState, InstanceIsLocked

INITIAL_VM_STATE = VmState.BUILDING
INITIAL_TASK_STATE = TaskState.SCHEDULING
INITIAL_POWER_STATE = PowerState.NOSTATE
_RESTING_POWER = {
    VmState.ACTIVE: PowerState.RUNNING,
    VmState.STOPPED: PowerState.SHUTDOWN,
    VmState.PAUSED: PowerState.PAUSED,
    VmState.SUSPENDED: PowerState.SUSPENDED,
}


@dataclasses.dataclass(frozen=True)
class Transition:
    expected_vm_states: frozenset[VmState]
    expected_task_states: frozenset[TaskState | None]
    vm_state: VmState
    task_state: TaskState | None
    power_state: PowerState | None = None

    def changes(self) -> dict[str, object]:
        """The column values to write (power_state only when the table knows it)."""
        new: dict[str, object] = {"vm_state": self.vm_state, "task_state": self.task_state}
        if self.power_state is not None:
            new["power_state"] = self.power_state
        return new


def rule(action: Action) -> Rule:
    return TABLE[action]


def allowed(action: Action, vm_state: VmState, task_state: TaskState | None) -> bool:
    row = TABLE[action]
    return vm_state in row.vm_states and task_state in row.task_states


def check(
    action: Action,
    vm_state: VmState,
    task_state: TaskState | None,
    *,
    launched: bool,
    instance_uuid: str = "",
    locked: bool = False,
    is_admin: bool = False,
) -> None:
    """Raise the 409 Nova raises when ``action`` meets this instance."""
    row = TABLE[action]
    if row.lock_checked and locked and not is_admin:
        raise InstanceIsLocked(instance_uuid=instance_uuid)
    method = row.recorded_as
    if vm_state not in row.vm_states:
        raise InstanceInvalidState(
            attr="vm_state", instance_uuid=instance_uuid, state=vm_state, method=method
        )
    if task_state not in row.task_states:
        raise InstanceInvalidState(
            attr="task_state", instance_uuid=instance_uuid, state=task_state, method=method
        )
    if row.must_have_launched and not launched:
        raise InstanceInvalidState(
            attr="launched_at", instance_uuid=instance_uuid, state=None, method=method
        )


def begin(action: Action, vm_state: VmState, task_state: TaskState | None) -> Transition:
    """The CAS that accepts ``action``; call ``check`` first for the right 409."""
    row = TABLE[action]
    if action is Action.BUILD:
        raise ValueError("a build starts by inserting the row in INITIAL_* states")
    target = row.steps[0] if row.steps else task_state
    return Transition(row.vm_states, row.task_states, vm_state, target)


def advance(action: Action, vm_state: VmState, step: TaskState) -> Transition:
    """Move from ``step`` to the next task_state of ``action``."""
    steps = TABLE[action].steps
    index = steps.index(step)
    if index + 1 >= len(steps):
        raise ValueError(f"{step} is the last step of {action}")
    return Transition(frozenset({vm_state}), frozenset({step}), vm_state, steps[index + 1])


def finish(
    action: Action,
    vm_state: VmState,
    *,
    prior: VmState | None = None,
    power: PowerState | None = None,
) -> Transition:
    """Success: from any step of ``action`` to the table's landing state.

    ``prior`` is the vm_state before a resize (Nova keeps it as
    ``old_vm_state``); confirm and revert return to it. ``power``, what the
    driver reports once the work is done, wins over the power the table implies.
    """
    row = _stepped(action)
    target = row.success[vm_state]
    if target is PRIOR:
        if prior not in (VmState.ACTIVE, VmState.STOPPED):
            raise ValueError(f"{action} needs the pre-resize vm_state, got {prior!r}")
        target = prior
    assert isinstance(target, VmState)
    power = power if power is not None else row.power
    if power is None:
        # A resized guest keeps the power it had; otherwise the resting state says.
        resting = vm_state if target is VmState.RESIZED else target
        power = _RESTING_POWER.get(resting)
    return Transition(frozenset({vm_state}), frozenset(row.steps), target, None, power)


def fail(action: Action, vm_state: VmState) -> Transition:
    """Failure: from any step of ``action``; the task_state is always cleared."""
    row = _stepped(action)
    target = vm_state if row.failure is SAME else row.failure
    assert isinstance(target, VmState)
    return Transition(frozenset({vm_state}), frozenset(row.steps), target, None)


def system(
    event: Event,
    vm_state: VmState,
    *,
    power: PowerState | None = None,
    instance_uuid: str = "",
) -> Transition:
    """The CAS of system ``event`` for an instance seen in ``vm_state``.

    ``power`` is the hypervisor's reading, for the events that record it. An
    instance the event cannot start from is the 409 a lost race gets.
    """
    row = SYSTEM[event]
    if vm_state not in row.vm_states:
        raise InstanceInvalidState(
            attr="vm_state", instance_uuid=instance_uuid, state=vm_state, method=str(event)
        )
    if row.power is OBSERVED:
        if power is None:
            raise ValueError(f"{event} records the power state the driver reports")
        written: PowerState | None = power
    elif power is not None:
        raise ValueError(f"{event} does not record an observed power state")
    else:
        written = row.power
    target = vm_state if row.vm_state is SAME else row.vm_state
    return Transition(frozenset({vm_state}), row.task_states, target, row.task_state, written)


def in_flight(task_state: TaskState | None) -> Action | None:
    """The action a task_state belongs to (None when idle or not one of ours)."""
    return None if task_state is None else OWNER.get(task_state)


def _stepped(action: Action) -> Rule:
    # Step-less actions (lock, metadata) are done by ``begin``'s one write.
    row = TABLE[action]
    if not row.steps:
        raise ValueError(f"{action} has no task in flight to finish")
    return row
