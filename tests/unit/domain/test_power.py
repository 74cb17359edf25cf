"""The reconcile decision for every vm_state and reported power state."""

from __future__ import annotations

import itertools

import pytest

from saphira.domain.power import PowerSync, sync_power_state
from saphira.domain.states import EXPECTED_POWER, PowerState, TaskState, VmState

V, P = VmState, PowerState


def test_a_task_in_flight_is_never_touched() -> None:
    for vm, actual in itertools.product(VmState, PowerState):
        assert sync_power_state(vm, TaskState.SPAWNING, P.NOSTATE, actual).noop


@pytest.mark.parametrize(
    ("vm", "actual", "expected"),
    [
        (V.ACTIVE, P.SHUTDOWN, PowerSync(P.SHUTDOWN, V.STOPPED)),
        (V.ACTIVE, P.CRASHED, PowerSync(P.CRASHED, V.STOPPED)),
        (V.ACTIVE, P.SUSPENDED, PowerSync(P.SUSPENDED, V.STOPPED)),
        (V.ACTIVE, P.PAUSED, PowerSync(P.PAUSED)),
        (V.PAUSED, P.SHUTDOWN, PowerSync(P.SHUTDOWN, V.STOPPED)),
        (V.STOPPED, P.RUNNING, PowerSync(None, power_off_guest=True)),
        (V.STOPPED, P.NOSTATE, PowerSync(P.NOSTATE)),
        (V.DELETED, P.RUNNING, PowerSync(None, power_off_guest=True)),
        (V.ERROR, P.SHUTDOWN, PowerSync(P.SHUTDOWN)),
        (V.RESIZED, P.SHUTDOWN, PowerSync(P.SHUTDOWN)),
    ],
)
def test_nova_decisions(vm: VmState, actual: PowerState, expected: PowerSync) -> None:
    assert sync_power_state(vm, None, P.RUNNING, actual) == expected


def test_agreement_is_a_noop_everywhere() -> None:
    for vm, powers in EXPECTED_POWER.items():
        for power in powers:
            assert sync_power_state(vm, None, power, power).noop, (vm, power)
