"""The API's ``status`` field from (vm_state, task_state), exactly as Nova's
``nova/api/openstack/common.py`` ``_STATE_MAP`` does, and its inverse for
``GET /servers?status=``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from saphira.domain.states import TaskState, VmState

DEFAULT = "default"
T = TaskState
_REBUILD: dict[str, str] = {
    T.REBUILDING: "REBUILD",
    T.REBUILD_BLOCK_DEVICE_MAPPING: "REBUILD",
    T.REBUILD_SPAWNING: "REBUILD",
}
_RESIZE: dict[str, str] = {
    T.RESIZE_PREP: "RESIZE",
    T.RESIZE_MIGRATING: "RESIZE",
    T.RESIZE_MIGRATED: "RESIZE",
    T.RESIZE_FINISH: "RESIZE",
}

STATE_MAP: Mapping[VmState, Mapping[str, str]] = {
    VmState.ACTIVE: {
        DEFAULT: "ACTIVE",
        T.REBOOTING: "REBOOT",
        T.REBOOT_PENDING: "REBOOT",
        T.REBOOT_STARTED: "REBOOT",
        T.REBOOTING_HARD: "HARD_REBOOT",
        T.REBOOT_PENDING_HARD: "HARD_REBOOT",
        T.REBOOT_STARTED_HARD: "HARD_REBOOT",
        T.UPDATING_PASSWORD: "PASSWORD",
        **_REBUILD,
        T.MIGRATING: "MIGRATING",
        **_RESIZE,
    },
    VmState.BUILDING: {DEFAULT: "BUILD"},
    VmState.STOPPED: {DEFAULT: "SHUTOFF", **_RESIZE, **_REBUILD},
    # Nova leaves RESIZE_CONFIRMING on VERIFY_RESIZE: API 1.1 has no such status.
    VmState.RESIZED: {DEFAULT: "VERIFY_RESIZE", T.RESIZE_REVERTING: "REVERT_RESIZE"},
    VmState.PAUSED: {DEFAULT: "PAUSED", T.MIGRATING: "MIGRATING"},
    VmState.SUSPENDED: {DEFAULT: "SUSPENDED"},
    VmState.RESCUED: {DEFAULT: "RESCUE"},
    VmState.ERROR: {DEFAULT: "ERROR", **_REBUILD},
    VmState.DELETED: {DEFAULT: "DELETED"},
    VmState.SOFT_DELETED: {DEFAULT: "SOFT_DELETED"},
    VmState.SHELVED: {DEFAULT: "SHELVED"},
    VmState.SHELVED_OFFLOADED: {DEFAULT: "SHELVED_OFFLOADED"},
}


def status_from_state(vm_state: str, task_state: str | None = None) -> str:
    """ "ACTIVE", "BUILD", ...; "UNKNOWN" for a vm_state Nova does not know."""
    try:
        task_map = STATE_MAP[VmState(vm_state)]
    except ValueError:
        return "UNKNOWN"
    if task_state is not None and task_state in task_map:
        return task_map[task_state]
    return task_map[DEFAULT]


@dataclasses.dataclass(frozen=True)
class StatusFilter:
    """What ``?status=`` means as database filters.

    ``task_states`` is None when any task_state matches: Nova drops the task
    filter as soon as one status maps to a vm_state's default (so
    ``status=ACTIVE`` also lists rebooting servers, as in Nova).
    ``vm_states`` empty means no server can match.
    """

    vm_states: tuple[VmState, ...]
    task_states: tuple[TaskState, ...] | None


def filter_from_status(statuses: Iterable[str]) -> StatusFilter:
    wanted = {status.lower() for status in statuses}
    vm_states: set[VmState] = set()
    task_states: set[str] = set()
    for vm_state, task_map in STATE_MAP.items():
        for task_state, status in task_map.items():
            if status.lower() in wanted:
                vm_states.add(vm_state)
                task_states.add(task_state)
    if DEFAULT in task_states:
        return StatusFilter(tuple(sorted(vm_states)), None)
    tasks = tuple(sorted(TaskState(task) for task in task_states))
    return StatusFilter(tuple(sorted(vm_states)), tasks)
