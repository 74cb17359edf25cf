"""Every (action, vm_state, task_state) combination against Nova's own rules.

NOVA below is transcribed from nova/compute/api.py's decorators (vm_state
list, task_state list or None for "any", must_have_launched, lock check), in
Nova's shape rather than ours, so the table is checked against an oracle
written differently from it.
"""

from __future__ import annotations

import itertools

import pytest

from saphira.domain import transitions as tr
from saphira.domain.states import PowerState, TaskState, VmState
from saphira.domain.status import status_from_state
from saphira.domain.table import OWNER, PRIOR, TABLE, Action
from saphira.exception import InstanceInvalidState, InstanceIsLocked

V, T = VmState, TaskState
ALLOW_REBOOT = [None, T.REBOOTING, T.REBOOT_PENDING, T.REBOOT_STARTED, T.RESUMING,
                T.REBOOTING_HARD, T.UNPAUSING, T.PAUSING, T.SUSPENDING]  # fmt: skip
ANY = None
# action: (vm_states or ANY, task_states or ANY, must_have_launched, lock_checked)
NOVA: dict[Action, tuple[list[VmState] | None, list[TaskState | None] | None, bool, bool]] = {
    Action.START: ([V.STOPPED], [None], True, True),
    Action.STOP: ([V.ACTIVE, V.ERROR], [None], True, True),
    Action.REBOOT_SOFT: ([V.ACTIVE], [None], True, True),
    Action.REBOOT_HARD: (
        [V.ACTIVE, V.STOPPED, V.PAUSED, V.SUSPENDED, V.ERROR],
        ALLOW_REBOOT,
        True,
        True,
    ),
    Action.REBUILD: ([V.ACTIVE, V.STOPPED, V.ERROR], [None], True, True),
    Action.PAUSE: ([V.ACTIVE], [None], True, True),
    Action.UNPAUSE: ([V.PAUSED], [None], True, True),
    Action.SUSPEND: ([V.ACTIVE], [None], True, True),
    Action.RESUME: ([V.SUSPENDED], [None], True, True),
    Action.RESIZE: ([V.ACTIVE, V.STOPPED], [None], True, True),
    Action.CONFIRM_RESIZE: ([V.RESIZED], [None], True, True),
    Action.REVERT_RESIZE: ([V.RESIZED], [None], True, True),
    Action.CREATE_IMAGE: ([V.ACTIVE, V.STOPPED, V.PAUSED, V.SUSPENDED], [None], True, False),
    Action.DELETE: (ANY, ANY, False, True),
    Action.LOCK: (ANY, ANY, False, False),
    Action.UNLOCK: (ANY, ANY, False, False),
    Action.UPDATE_METADATA: ([V.ACTIVE, V.PAUSED, V.SUSPENDED, V.STOPPED], ANY, True, True),
    Action.ATTACH_INTERFACE: ([V.ACTIVE, V.PAUSED, V.STOPPED], [None], True, True),
    Action.DETACH_INTERFACE: ([V.ACTIVE, V.PAUSED, V.STOPPED], [None], True, True),
}
LIVE = [vm for vm in VmState if vm is not V.DELETED]
TASKS: list[TaskState | None] = [None, *TaskState]


def _nova_allows(action: Action, vm: VmState, task: TaskState | None, launched: bool) -> bool:
    vms, tasks, must_launch, _ = NOVA[action]
    return (
        (vms is None or vm in vms)
        and (tasks is None or task in tasks)
        and (launched or not must_launch)
    )


def test_oracle_covers_every_api_action() -> None:
    assert set(NOVA) == set(Action) - {Action.BUILD}


@pytest.mark.parametrize("action", sorted(NOVA))
def test_check_matches_nova_everywhere(action: Action) -> None:
    for vm, task, launched in itertools.product(LIVE, TASKS, (True, False)):
        expected = _nova_allows(action, vm, task, launched)
        try:
            tr.check(action, vm, task, launched=launched, instance_uuid="u1")
        except InstanceInvalidState as error:
            assert not expected, (action, vm, task, launched)
            # The 409 names the state the instance is in now.
            assert error.kwargs["state"] in (vm, task, None)
            assert "u1" in error.message
        else:
            assert expected, (action, vm, task, launched)


@pytest.mark.parametrize("action", sorted(NOVA))
def test_lock_blocks_non_admins_only_where_nova_checks(action: Action) -> None:
    vm = next(iter(TABLE[action].vm_states))
    task = None if None in TABLE[action].task_states else next(iter(TABLE[action].task_states))
    tr.check(action, vm, task, launched=True, locked=True, is_admin=True)
    if NOVA[action][3]:
        with pytest.raises(InstanceIsLocked):
            tr.check(action, vm, task, launched=True, locked=True)
    else:
        tr.check(action, vm, task, launched=True, locked=True)


def test_every_step_has_exactly_one_owner() -> None:
    steps = [step for rule in TABLE.values() for step in rule.steps]
    assert len(steps) == len(set(steps)) == len(OWNER)
    for rule in TABLE.values():
        assert all(tr.in_flight(step) is rule.action for step in rule.steps)
    assert tr.in_flight(None) is None
    assert tr.in_flight(T.SHELVING) is None


@pytest.mark.parametrize("action", sorted(set(Action) - {Action.BUILD}))
def test_success_is_defined_for_every_accepted_state(action: Action) -> None:
    assert set(TABLE[action].success) == TABLE[action].vm_states


def _apply(
    state: tuple[VmState, TaskState | None], move: tr.Transition
) -> tuple[VmState, TaskState | None]:
    """An in-memory compare-and-swap, as the database does it."""
    vm, task = state
    if vm not in move.expected_vm_states or task not in move.expected_task_states:
        raise InstanceInvalidState(attr="task_state", instance_uuid="x", state=task, method="x")
    return move.vm_state, move.task_state


def _walk(action: Action, vm: VmState, task: TaskState | None) -> tuple[VmState, TaskState | None]:
    state = _apply((vm, task), tr.begin(action, vm, task))
    while state[1] is not None and TABLE[action].steps and state[1] != TABLE[action].steps[-1]:
        assert status_from_state(*state) != "UNKNOWN"
        state = _apply(state, tr.advance(action, state[0], state[1]))
    return state


@pytest.mark.parametrize("action", sorted(set(Action) - {Action.BUILD}))
def test_every_accepted_start_walks_to_a_resting_state(action: Action) -> None:
    rule = TABLE[action]
    for vm, task in itertools.product(sorted(rule.vm_states), rule.task_states):
        state = _walk(action, vm, task)
        if not rule.steps:
            # One write does it all, leaving any task in flight alone.
            assert state == (vm, task)
            with pytest.raises(ValueError):
                tr.finish(action, vm)
            continue
        ok = _apply(state, tr.finish(action, state[0], prior=V.STOPPED))
        bad = _apply(state, tr.fail(action, state[0]))
        expected = rule.success[vm]
        assert ok == (V.STOPPED if expected is PRIOR else expected, None)
        assert bad[1] is None
        assert bad[0] in (vm, rule.failure)
        assert status_from_state(*ok) != "UNKNOWN"


def test_build_walks_through_nova_steps_to_active() -> None:
    state: tuple[VmState, TaskState | None] = (tr.INITIAL_VM_STATE, tr.INITIAL_TASK_STATE)
    seen = [state[1]]
    while state[1] is not T.SPAWNING:
        assert state[1] is not None
        state = _apply(state, tr.advance(Action.BUILD, state[0], state[1]))
        seen.append(state[1])
        assert status_from_state(*state) == "BUILD"
    assert seen == [T.SCHEDULING, T.BLOCK_DEVICE_MAPPING, T.NETWORKING, T.SPAWNING]
    done = tr.finish(Action.BUILD, state[0])
    assert _apply(state, done) == (V.ACTIVE, None) and done.power_state is PowerState.RUNNING
    assert _apply(state, tr.fail(Action.BUILD, state[0])) == (V.ERROR, None)
    with pytest.raises(ValueError):
        tr.begin(Action.BUILD, V.BUILDING, None)


def test_a_hard_reboot_overtakes_a_soft_one_whose_completion_then_loses() -> None:
    state = _apply((V.ACTIVE, None), tr.begin(Action.REBOOT_SOFT, V.ACTIVE, None))
    tr.check(Action.REBOOT_HARD, *state, launched=True)
    state = _apply(state, tr.begin(Action.REBOOT_HARD, *state))
    assert status_from_state(*state) == "HARD_REBOOT"
    with pytest.raises(InstanceInvalidState):
        _apply(state, tr.finish(Action.REBOOT_SOFT, V.ACTIVE))
    assert _apply(state, tr.finish(Action.REBOOT_HARD, V.ACTIVE)) == (V.ACTIVE, None)


def test_a_second_identical_request_loses_the_race() -> None:
    first = tr.begin(Action.STOP, V.ACTIVE, None)
    state = _apply((V.ACTIVE, None), first)
    with pytest.raises(InstanceInvalidState):
        _apply(state, tr.begin(Action.STOP, V.ACTIVE, None))


@pytest.mark.parametrize(
    ("prior", "power"), [(V.ACTIVE, PowerState.RUNNING), (V.STOPPED, PowerState.SHUTDOWN)]
)
def test_resize_round_trip_returns_to_prior(prior: VmState, power: PowerState) -> None:
    resized = tr.finish(Action.RESIZE, prior)
    assert (resized.vm_state, resized.power_state) == (V.RESIZED, power)
    for action in (Action.CONFIRM_RESIZE, Action.REVERT_RESIZE):
        done = tr.finish(action, V.RESIZED, prior=prior)
        assert (done.vm_state, done.power_state) == (prior, power)
        with pytest.raises(ValueError):
            tr.finish(action, V.RESIZED)


def test_rebuild_heals_error_and_keeps_stopped() -> None:
    assert tr.finish(Action.REBUILD, V.ERROR).vm_state is V.ACTIVE
    assert tr.finish(Action.REBUILD, V.STOPPED).vm_state is V.STOPPED
    assert tr.fail(Action.REBUILD, V.ACTIVE).vm_state is V.ERROR
    assert tr.fail(Action.RESIZE, V.STOPPED).vm_state is V.STOPPED


def test_changes_include_power_only_when_known() -> None:
    assert tr.finish(Action.STOP, V.ACTIVE).changes() == {
        "vm_state": V.STOPPED, "task_state": None, "power_state": PowerState.SHUTDOWN,
    }  # fmt: skip
    assert "power_state" not in tr.fail(Action.STOP, V.ACTIVE).changes()


def test_advance_rejects_the_last_step() -> None:
    with pytest.raises(ValueError):
        tr.advance(Action.STOP, V.ACTIVE, T.POWERING_OFF)
