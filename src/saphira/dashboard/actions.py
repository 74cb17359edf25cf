"""Which instance actions a row offers: the domain's transition table decides.

Each offer is one action of ``saphira.domain.table``; it is shown only when
the table accepts it from the instance's vm_state and task_state (and the
instance has launched, and is not locked, where the table asks). Lock and
Unlock are both accepted in every live state: the one that changes something
is offered (Lock when unlocked, Unlock when locked). Resize and Snapshot ask
for a value first (a flavor, a name) on a form of their own. The API still
checks: a state that changed meanwhile is the API's 409, in plain words.
"""

from __future__ import annotations

from dataclasses import dataclass

from saphira.domain.states import TaskState, VmState
from saphira.domain.table import Action
from saphira.domain.transitions import allowed, rule


@dataclass(frozen=True)
class Offer:
    name: str  # the form's value
    label: str
    action: Action
    warning: str = ""  # said on the confirmation page; empty: no confirmation
    form: str = ""  # a page that asks for a value first ("resize", "snapshot"); empty: none
    locked: bool | None = None  # offered only when the lock is this (None: either way)

    @property
    def confirmed(self) -> bool:
        return bool(self.warning)


OFFERS: tuple[Offer, ...] = (
    Offer("stop", "Shut Off", Action.STOP),
    Offer("start", "Start", Action.START),
    Offer("reboot", "Reboot", Action.REBOOT_SOFT),
    Offer("pause", "Pause", Action.PAUSE),
    Offer("unpause", "Unpause", Action.UNPAUSE),
    Offer("suspend", "Suspend", Action.SUSPEND),
    Offer("resume", "Resume", Action.RESUME),
    Offer("resize", "Resize", Action.RESIZE, form="resize"),
    Offer(
        "confirm_resize", "Confirm Resize", Action.CONFIRM_RESIZE,
        "Confirming keeps the new flavor and frees the old one: "
        "the instance can no longer go back to its size before the resize.",
    ),
    Offer(
        "revert_resize", "Revert Resize", Action.REVERT_RESIZE,
        "Reverting returns the instance to its old flavor and disks: "
        "everything written since the resize began is lost.",
    ),
    Offer("snapshot", "Create Snapshot", Action.CREATE_IMAGE, form="snapshot"),
    Offer("lock", "Lock", Action.LOCK, locked=False),
    Offer("unlock", "Unlock", Action.UNLOCK, locked=True),
    Offer(
        "rebuild", "Rebuild", Action.REBUILD,
        "Rebuild replaces the root disk with a fresh copy of the image: "
        "everything written on it is lost.",
    ),
    Offer(
        "delete", "Delete", Action.DELETE,
        "Delete removes the instance and its ephemeral storage: "
        "everything on its local disks is lost.",
    ),
)  # fmt: skip
BY_NAME = {offer.name: offer for offer in OFFERS}


def offered(
    vm_state: str | None, task_state: str | None, *, launched: bool, locked: bool
) -> tuple[Offer, ...]:
    """The offers the table accepts now; none for a state the domain does not know."""
    try:
        vm = VmState(vm_state or "")
        task = TaskState(task_state) if task_state else None
    except ValueError:
        return ()
    return tuple(
        o for o in OFFERS
        if o.locked in (None, locked) and _accepts(o.action, vm, task, launched, locked)
    )  # fmt: skip


def _accepts(
    action: Action, vm: VmState, task: TaskState | None, launched: bool, locked: bool
) -> bool:
    row = rule(action)
    if row.lock_checked and locked:
        return False
    if row.must_have_launched and not launched:
        return False
    return allowed(action, vm, task)
