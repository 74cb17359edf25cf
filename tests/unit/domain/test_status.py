"""The API status mapping, spot-checked against Nova and exhaustively invertible."""

from __future__ import annotations

import itertools

import pytest

from saphira.domain.states import PowerState, TaskState, VmState
from saphira.domain.status import STATE_MAP, filter_from_status, status_from_state

V, T = VmState, TaskState
PAIRS = list(itertools.product(VmState, [None, *TaskState]))


@pytest.mark.parametrize(
    ("vm", "task", "status"),
    [
        (V.ACTIVE, None, "ACTIVE"),
        (V.ACTIVE, T.REBOOT_STARTED, "REBOOT"),
        (V.ACTIVE, T.REBOOT_PENDING_HARD, "HARD_REBOOT"),
        (V.ACTIVE, T.RESIZE_MIGRATED, "RESIZE"),
        (V.ACTIVE, T.POWERING_OFF, "ACTIVE"),
        (V.ACTIVE, T.IMAGE_UPLOADING, "ACTIVE"),
        (V.BUILDING, T.SPAWNING, "BUILD"),
        (V.STOPPED, None, "SHUTOFF"),
        (V.STOPPED, T.REBUILD_SPAWNING, "REBUILD"),
        (V.RESIZED, None, "VERIFY_RESIZE"),
        (V.RESIZED, T.RESIZE_CONFIRMING, "VERIFY_RESIZE"),
        (V.RESIZED, T.RESIZE_REVERTING, "REVERT_RESIZE"),
        (V.PAUSED, None, "PAUSED"),
        (V.SUSPENDED, T.RESUMING, "SUSPENDED"),
        (V.ERROR, T.REBUILDING, "REBUILD"),
        (V.ERROR, T.DELETING, "ERROR"),
        (V.DELETED, None, "DELETED"),
        (V.SOFT_DELETED, None, "SOFT_DELETED"),
        (V.SHELVED_OFFLOADED, None, "SHELVED_OFFLOADED"),
        (V.RESCUED, None, "RESCUE"),
    ],
)
def test_nova_values(vm: VmState, task: TaskState | None, status: str) -> None:
    assert status_from_state(vm, task) == status


def test_every_pair_has_a_status_and_unknown_vm_states_say_so() -> None:
    assert all(status_from_state(vm, task) != "UNKNOWN" for vm, task in PAIRS)
    assert status_from_state("bogus", None) == "UNKNOWN"


@pytest.mark.parametrize("status", sorted({s for m in STATE_MAP.values() for s in m.values()}))
def test_status_filter_finds_exactly_what_nova_would(status: str) -> None:
    found = filter_from_status([status.lower()])
    for vm, task in PAIRS:
        matches = vm in found.vm_states and (found.task_states is None or task in found.task_states)
        if status_from_state(vm, task) == status:
            assert matches, (vm, task)
        elif matches:
            # Nova's quirk: a default status drops the task filter, so
            # status=ACTIVE also lists a rebooting server.
            assert found.task_states is None and STATE_MAP[vm]["default"] == status


def test_status_filter_mixes_and_rejects() -> None:
    mixed = filter_from_status(["REBOOT", "HARD_REBOOT"])
    assert mixed.vm_states == (V.ACTIVE,)
    assert mixed.task_states is not None and T.REBOOTING_HARD in mixed.task_states
    assert filter_from_status(["NOPE"]).vm_states == ()


def test_power_state_labels() -> None:
    assert [p.label for p in PowerState] == [
        "pending", "running", "paused", "shutdown", "crashed", "suspended",
    ]  # fmt: skip
    assert int(PowerState.SUSPENDED) == 7
