"""THE instance transition table: one row per action or event, nothing else decides.

``TABLE`` has a row per API action: where the API accepts it (Nova's
``@check_instance_state`` per method), whether a lock stops it
(``@check_instance_lock``), the task_states the work walks through (the API
sets the first one), and where success and failure land. ``SYSTEM`` has a row
per system event, what the services do to an instance on their own (a
reschedule, the watchdog, the end of a delete, the power sync...): the states
it may start from and where it lands. ``transitions`` turns a row into
compare-and-swap requests; nothing else should hard-code a state pair
(tests/unit/domain/test_state_writes.py keeps the tree to that).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping

from saphira.domain.states import PowerState, TaskState, VmState


class Action(enum.StrEnum):
    BUILD = "build"
    START = "start"
    STOP = "stop"
    REBOOT_SOFT = "reboot_soft"
    REBOOT_HARD = "reboot_hard"
    REBUILD = "rebuild"
    PAUSE = "pause"
    UNPAUSE = "unpause"
    SUSPEND = "suspend"
    RESUME = "resume"
    RESIZE = "resize"
    CONFIRM_RESIZE = "confirm_resize"
    REVERT_RESIZE = "revert_resize"
    CREATE_IMAGE = "create_image"
    DELETE = "delete"
    LOCK = "lock"
    UNLOCK = "unlock"
    UPDATE_METADATA = "update_metadata"
    ATTACH_INTERFACE = "attach_interface"
    DETACH_INTERFACE = "detach_interface"


class Prior(enum.Enum):
    """Success lands in the vm_state the instance had before the resize began."""

    PRIOR = "prior"


class Same(enum.Enum):
    """Failure leaves the vm_state where it was (the task_state is cleared)."""

    SAME = "same"


class Observed(enum.Enum):
    """The power state the hypervisor reports, which the caller hands over."""

    OBSERVED = "observed"


PRIOR = Prior.PRIOR
SAME = Same.SAME
OBSERVED = Observed.OBSERVED
Target = VmState | Prior


@dataclasses.dataclass(frozen=True)
class Rule:
    action: Action
    # Nova's instance-action name, as os-instance-actions lists it.
    recorded_as: str
    # vm_states the API accepts the action in (empty for BUILD: no row exists yet).
    vm_states: frozenset[VmState]
    task_states: frozenset[TaskState | None]
    # The task_states the work walks through; steps[0] is set when it is accepted.
    steps: tuple[TaskState, ...]
    # Where success lands, per vm_state the work started from.
    success: Mapping[VmState, Target]
    failure: VmState | Same
    # The power state success implies, or None when only the driver can say.
    power: PowerState | None = None
    must_have_launched: bool = True
    lock_checked: bool = True


_IDLE: frozenset[TaskState | None] = frozenset({None})
_ANY_TASK: frozenset[TaskState | None] = frozenset({None, *TaskState})
_LIVE = frozenset(VmState) - {VmState.DELETED}
_SNAPSHOTTABLE = frozenset({VmState.ACTIVE, VmState.STOPPED, VmState.PAUSED, VmState.SUSPENDED})
# Nova's task_states.ALLOW_REBOOT: a hard reboot may take over these.
_ALLOW_HARD_REBOOT: frozenset[TaskState | None] = frozenset(
    {
        None,
        TaskState.REBOOTING,
        TaskState.REBOOT_PENDING,
        TaskState.REBOOT_STARTED,
        TaskState.RESUMING,
        TaskState.REBOOTING_HARD,
        TaskState.UNPAUSING,
        TaskState.PAUSING,
        TaskState.SUSPENDING,
    }
)


def _to(target: Target, *starts: VmState) -> dict[VmState, Target]:
    return dict.fromkeys(starts, target)


def _same(*starts: VmState) -> dict[VmState, Target]:
    return {start: start for start in starts}


def _row(
    action: Action,
    recorded_as: str,
    vm_states: frozenset[VmState],
    steps: tuple[TaskState, ...],
    success: dict[VmState, Target],
    failure: VmState | Same = SAME,
    *,
    task_states: frozenset[TaskState | None] = _IDLE,
    power: PowerState | None = None,
    must_have_launched: bool = True,
    lock_checked: bool = True,
) -> Rule:
    return Rule(
        action, recorded_as, vm_states, task_states, steps, success, failure,
        power, must_have_launched, lock_checked,
    )  # fmt: skip


_A, _S, _P = VmState.ACTIVE, VmState.STOPPED, VmState.PAUSED
_U, _R, _E = VmState.SUSPENDED, VmState.RESIZED, VmState.ERROR
T = TaskState

TABLE: Mapping[Action, Rule] = {
    rule.action: rule
    for rule in (
        _row(
            Action.BUILD, "create", frozenset(),
            (T.SCHEDULING, T.BLOCK_DEVICE_MAPPING, T.NETWORKING, T.SPAWNING),
            _to(_A, VmState.BUILDING), _E, power=PowerState.RUNNING,
            must_have_launched=False, lock_checked=False,
        ),
        _row(Action.START, "start", frozenset({_S}), (T.POWERING_ON,), _to(_A, _S),
             power=PowerState.RUNNING),
        _row(Action.STOP, "stop", frozenset({_A, _E}), (T.POWERING_OFF,), _to(_S, _A, _E),
             power=PowerState.SHUTDOWN),
        _row(Action.REBOOT_SOFT, "reboot", frozenset({_A}),
             (T.REBOOTING, T.REBOOT_PENDING, T.REBOOT_STARTED), _same(_A),
             power=PowerState.RUNNING),
        _row(Action.REBOOT_HARD, "reboot", frozenset({_A, _S, _P, _U, _E}),
             (T.REBOOTING_HARD, T.REBOOT_PENDING_HARD, T.REBOOT_STARTED_HARD),
             _to(_A, _A, _S, _P, _U, _E), _E, power=PowerState.RUNNING,
             task_states=_ALLOW_HARD_REBOOT),
        _row(Action.REBUILD, "rebuild", frozenset({_A, _S, _E}),
             (T.REBUILDING, T.REBUILD_BLOCK_DEVICE_MAPPING, T.REBUILD_SPAWNING),
             {_A: _A, _S: _S, _E: _A}, _E),
        _row(Action.PAUSE, "pause", frozenset({_A}), (T.PAUSING,), _to(_P, _A),
             power=PowerState.PAUSED),
        _row(Action.UNPAUSE, "unpause", frozenset({_P}), (T.UNPAUSING,), _to(_A, _P),
             power=PowerState.RUNNING),
        _row(Action.SUSPEND, "suspend", frozenset({_A}), (T.SUSPENDING,), _to(_U, _A),
             power=PowerState.SUSPENDED),
        _row(Action.RESUME, "resume", frozenset({_U}), (T.RESUMING,), _to(_A, _U),
             power=PowerState.RUNNING),
        _row(Action.RESIZE, "resize", frozenset({_A, _S}),
             (T.RESIZE_PREP, T.RESIZE_MIGRATING, T.RESIZE_MIGRATED, T.RESIZE_FINISH),
             _to(_R, _A, _S)),
        _row(Action.CONFIRM_RESIZE, "confirmResize", frozenset({_R}), (T.RESIZE_CONFIRMING,),
             _to(PRIOR, _R), _E),
        _row(Action.REVERT_RESIZE, "revertResize", frozenset({_R}), (T.RESIZE_REVERTING,),
             _to(PRIOR, _R), _E),
        _row(Action.CREATE_IMAGE, "createImage", _SNAPSHOTTABLE,
             (T.IMAGE_SNAPSHOT_PENDING, T.IMAGE_SNAPSHOT, T.IMAGE_PENDING_UPLOAD,
              T.IMAGE_UPLOADING),
             _same(*_SNAPSHOTTABLE), lock_checked=False),
        _row(Action.DELETE, "delete", _LIVE, (T.DELETING,),
             _to(VmState.DELETED, *_LIVE), _E, power=PowerState.NOSTATE,
             task_states=_ANY_TASK, must_have_launched=False),
        _row(Action.LOCK, "lock", _LIVE, (), _same(*_LIVE),
             task_states=_ANY_TASK, must_have_launched=False, lock_checked=False),
        _row(Action.UNLOCK, "unlock", _LIVE, (), _same(*_LIVE),
             task_states=_ANY_TASK, must_have_launched=False, lock_checked=False),
        _row(Action.UPDATE_METADATA, "update_metadata", frozenset({_A, _P, _U, _S}), (),
             _same(_A, _P, _U, _S), task_states=_ANY_TASK),
        # No task_state: the agent serialises a server's NIC changes itself.
        _row(Action.ATTACH_INTERFACE, "attach_interface", frozenset({_A, _P, _S}), (),
             _same(_A, _P, _S)),
        _row(Action.DETACH_INTERFACE, "detach_interface", frozenset({_A, _P, _S}), (),
             _same(_A, _P, _S)),
    )
}  # fmt: skip

# Which action a task_state belongs to: every step is owned by exactly one row,
# so an in-flight task_state always says what is running.
OWNER: Mapping[TaskState, Action] = {
    step: rule.action for rule in TABLE.values() for step in rule.steps
}


class Event(enum.StrEnum):
    """What the services do to an instance on their own, with no API request."""

    RESCHEDULE = "reschedule"  # conductor: a failed spawn goes to the next alternate
    GIVE_UP = "give_up"  # conductor: no alternate left, or max_attempts reached
    NO_HOST = "no_host"  # conductor: nothing fits; the row is made in cell0
    HOST_DOWN = "host_down"  # conductor's watchdog: the building host went down
    DESTROY = "destroy"  # compute agent: the guest is gone, the end of a delete
    POWER_SYNC = "power_sync"  # compute agent: record the hypervisor's power state
    GUEST_STOPPED = "guest_stopped"  # compute agent: the guest powered itself off
    MOVE_ERROR = "move_error"  # compute agent: a resize failed after touching the guest


@dataclasses.dataclass(frozen=True)
class SystemRule:
    event: Event
    by: str  # the service that raises it
    vm_states: frozenset[VmState]
    task_states: frozenset[TaskState | None]
    vm_state: VmState | Same  # where it lands
    task_state: TaskState | None
    # None leaves the power state alone; OBSERVED writes what the driver reports.
    power: PowerState | Observed | None = None


_BUILD, _DELETE, _RESIZE = TABLE[Action.BUILD], TABLE[Action.DELETE], TABLE[Action.RESIZE]
_BUILDING = frozenset({VmState.BUILDING})
_BUILD_STEPS: frozenset[TaskState | None] = frozenset(_BUILD.steps)

SYSTEM: Mapping[Event, SystemRule] = {
    rule.event: rule
    for rule in (
        SystemRule(Event.RESCHEDULE, "conductor", _BUILDING, _BUILD_STEPS,
                   VmState.BUILDING, _BUILD.steps[0]),
        SystemRule(Event.GIVE_UP, "conductor", _BUILDING, _BUILD_STEPS, _E, None),
        SystemRule(Event.NO_HOST, "conductor", _BUILDING, frozenset({_BUILD.steps[0]}), _E, None),
        SystemRule(Event.HOST_DOWN, "conductor (watchdog)", _BUILDING, _BUILD_STEPS, _E, None),
        # Nova's _delete_instance: a delete that did its work lands whatever task ran.
        SystemRule(Event.DESTROY, "compute", _DELETE.vm_states, _ANY_TASK, VmState.DELETED, None,
                   _DELETE.power),
        SystemRule(Event.POWER_SYNC, "compute", _LIVE, _IDLE, SAME, None, OBSERVED),
        SystemRule(Event.GUEST_STOPPED, "compute", frozenset({_A, _P}), _IDLE, _S, None,
                   OBSERVED),
        SystemRule(Event.MOVE_ERROR, "compute", _RESIZE.vm_states, frozenset(_RESIZE.steps),
                   _E, None),
    )
}  # fmt: skip
