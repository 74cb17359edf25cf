"""Every system event against every (vm_state, task_state) an instance can be in.

EXPECTED is written out by hand from what each service did before the events
joined the table (and what Nova does in the same place), so the table is
checked against a second statement of the rules, not against itself.
"""

from __future__ import annotations

import itertools

import pytest

from saphira.domain import transitions as tr
from saphira.domain.power import sync_power_state
from saphira.domain.states import PowerState, TaskState, VmState
from saphira.domain.status import status_from_state
from saphira.domain.table import OBSERVED, SYSTEM, TABLE, Action, Event
from saphira.exception import InstanceInvalidState

V, T, P = VmState, TaskState, PowerState
BUILD_STEPS = [T.SCHEDULING, T.BLOCK_DEVICE_MAPPING, T.NETWORKING, T.SPAWNING]
RESIZE_STEPS = [T.RESIZE_PREP, T.RESIZE_MIGRATING, T.RESIZE_MIGRATED, T.RESIZE_FINISH]
LIVE: list[VmState] = [vm for vm in VmState if vm is not V.DELETED]
KEEP = None  # the vm_state stays as it was
Row = tuple[list[VmState], list[TaskState | None], VmState | None, TaskState | None]
# event: (vm_states, task_states, landing vm_state or KEEP, landing task_state)
EXPECTED: dict[Event, Row] = {
    Event.RESCHEDULE: ([V.BUILDING], [*BUILD_STEPS], V.BUILDING, T.SCHEDULING),
    Event.GIVE_UP: ([V.BUILDING], [*BUILD_STEPS], V.ERROR, None),
    Event.NO_HOST: ([V.BUILDING], [T.SCHEDULING], V.ERROR, None),
    Event.HOST_DOWN: ([V.BUILDING], [*BUILD_STEPS], V.ERROR, None),
    Event.DESTROY: (LIVE, [None, *TaskState], V.DELETED, None),
    Event.POWER_SYNC: (LIVE, [None], KEEP, None),
    Event.GUEST_STOPPED: ([V.ACTIVE, V.PAUSED], [None], V.STOPPED, None),
    Event.MOVE_ERROR: ([V.ACTIVE, V.STOPPED], [*RESIZE_STEPS], V.ERROR, None),
}  # fmt: skip
TASKS: list[TaskState | None] = [None, *TaskState]


def _power(event: Event) -> PowerState | None:
    return P.SHUTDOWN if SYSTEM[event].power is OBSERVED else None


def _cas(
    vm: VmState, task: TaskState | None, move: tr.Transition
) -> tuple[VmState, TaskState | None]:
    """An in-memory compare-and-swap, as the database does it."""
    if vm not in move.expected_vm_states or task not in move.expected_task_states:
        raise InstanceInvalidState(attr="task_state", instance_uuid="x", state=task, method="x")
    return move.vm_state, move.task_state


def test_the_oracle_covers_every_event() -> None:
    assert set(EXPECTED) == set(Event) == set(SYSTEM)


@pytest.mark.parametrize("event", sorted(Event))
def test_each_event_moves_exactly_where_expected(event: Event) -> None:
    vms, tasks, vm_to, task_to = EXPECTED[event]
    for vm, task in itertools.product(VmState, TASKS):
        allowed = vm in vms and task in tasks
        try:
            landed = _cas(vm, task, tr.system(event, vm, power=_power(event), instance_uuid="u1"))
        except InstanceInvalidState as error:
            assert not allowed, (event, vm, task)
            assert error.kwargs["state"] in (vm, task)
            continue
        assert allowed, (event, vm, task)
        assert landed == (vm if vm_to is KEEP else vm_to, task_to)


@pytest.mark.parametrize("event", sorted(Event))
def test_a_refused_start_names_the_event_and_the_instance(event: Event) -> None:
    vm = next(v for v in VmState if v not in EXPECTED[event][0])
    with pytest.raises(InstanceInvalidState, match=f"u1.*{event}|{event}.*u1") as raised:
        tr.system(event, vm, power=_power(event), instance_uuid="u1")
    assert raised.value.code == 409


@pytest.mark.parametrize("event", sorted(Event))
def test_every_landing_is_a_state_the_api_can_show(event: Event) -> None:
    for vm in EXPECTED[event][0]:
        move = tr.system(event, vm, power=_power(event))
        assert status_from_state(move.vm_state, move.task_state) != "UNKNOWN", (event, vm)


def test_only_the_power_events_take_an_observed_power_state() -> None:
    assert {e for e, rule in SYSTEM.items() if rule.power is OBSERVED} == {
        Event.POWER_SYNC, Event.GUEST_STOPPED,
    }  # fmt: skip
    with pytest.raises(ValueError, match="power"):
        tr.system(Event.POWER_SYNC, V.ACTIVE)
    with pytest.raises(ValueError, match="power"):
        tr.system(Event.HOST_DOWN, V.BUILDING, power=P.RUNNING)
    assert tr.system(Event.POWER_SYNC, V.ACTIVE, power=P.PAUSED).changes() == {
        "vm_state": V.ACTIVE, "task_state": None, "power_state": P.PAUSED,
    }  # fmt: skip
    assert "power_state" not in tr.system(Event.MOVE_ERROR, V.ACTIVE).changes()


def test_destroy_lands_where_the_delete_action_says() -> None:
    delete = TABLE[Action.DELETE]
    for vm in delete.vm_states:
        move = tr.system(Event.DESTROY, vm)
        assert move.vm_state == delete.success[vm]
        assert move.power_state == delete.power == P.NOSTATE
        assert move.expected_task_states == delete.task_states


def test_give_up_and_host_down_fail_a_build_as_its_own_failure_does() -> None:
    failed = tr.fail(Action.BUILD, V.BUILDING)
    for event in (Event.GIVE_UP, Event.HOST_DOWN):
        assert tr.system(event, V.BUILDING) == failed


def test_the_finish_power_is_the_drivers_when_given() -> None:
    assert tr.finish(Action.START, V.STOPPED).power_state is P.RUNNING
    assert tr.finish(Action.START, V.STOPPED, power=P.PAUSED).power_state is P.PAUSED
    assert tr.finish(Action.RESIZE, V.ACTIVE, power=P.SHUTDOWN).power_state is P.SHUTDOWN


def test_every_power_sync_decision_is_written_by_the_event_it_names() -> None:
    # A row reads vm_state deleted only inside the transaction that soft-deletes it.
    for vm, actual, recorded in itertools.product(LIVE, PowerState, PowerState):
        decision = sync_power_state(vm, None, recorded, actual)
        if decision.event is None:
            assert decision.power_state is None and decision.vm_state is None
            continue
        move = tr.system(decision.event, vm, power=actual)
        assert move.vm_state == (decision.vm_state or vm), (vm, actual, recorded)
        assert move.power_state is actual
