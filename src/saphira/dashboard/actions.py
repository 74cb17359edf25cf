"""Which instance actions a row offers: the domain's transition table decides.

Each offer is one action of ``saphira.domain.table``; it is shown only when
the table accepts it from the instance's vm_state and task_state (and the
instance has launched, and is not locked, where the table asks). The API
still checks: a state that changed meanwhile is the API's 409, in plain words.
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

    @property
    def confirmed(self) -> bool:
        return bool(self.warning)


OFFERS: tuple[Offer, ...] = (
    Offer("stop", "Shut Off", Action.STOP),
    Offer("start", "Start", Action.START),
    Offer("reboot", "Reboot", Action.REBOOT_SOFT),
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
    return tuple(o for o in OFFERS if _accepts(o.action, vm, task, launched, locked))


def _accepts(
    action: Action, vm: VmState, task: TaskState | None, launched: bool, locked: bool
) -> bool:
    row = rule(action)
    if row.lock_checked and locked:
        return False
    if row.must_have_launched and not launched:
        return False
    return allowed(action, vm, task)
