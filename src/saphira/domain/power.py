"""What a compute agent does when the hypervisor's power state disagrees.

Nova's ``_sync_instance_power_state`` as one pure decision, so the agent's
``reconcile_once()`` stays a loop of lookups and writes. An instance with a
task in flight is left alone: the action owns it.
"""

from __future__ import annotations

import dataclasses

from saphira.domain.states import PowerState, TaskState, VmState
from saphira.domain.table import Event

_OFF = frozenset({PowerState.SHUTDOWN, PowerState.CRASHED})
# vm_states whose guest Nova leaves alone beyond recording its power state.
_HANDS_OFF = frozenset(
    {VmState.BUILDING, VmState.RESCUED, VmState.RESIZED, VmState.SUSPENDED, VmState.ERROR}
)


@dataclasses.dataclass(frozen=True)
class PowerSync:
    power_state: PowerState | None = None  # record this power_state
    vm_state: VmState | None = None  # the guest changed on its own: move to this
    power_off_guest: bool = False  # the guest runs but must not: stop it

    @property
    def noop(self) -> bool:
        return self == PowerSync()

    @property
    def event(self) -> Event | None:
        """The table's system event that writes this decision (None: nothing to write)."""
        if self.vm_state is not None:  # always STOPPED, where GUEST_STOPPED lands
            return Event.GUEST_STOPPED
        return None if self.power_state is None else Event.POWER_SYNC


def sync_power_state(
    vm_state: VmState,
    task_state: TaskState | None,
    recorded: PowerState,
    actual: PowerState,
) -> PowerSync:
    if task_state is not None:
        return PowerSync()
    record = actual if actual != recorded else None
    if vm_state in _HANDS_OFF:
        return PowerSync(record)
    if vm_state in (VmState.ACTIVE, VmState.PAUSED):
        if actual in _OFF or (vm_state is VmState.ACTIVE and actual is PowerState.SUSPENDED):
            # A guest that powered itself off becomes SHUTOFF, as in Nova.
            return PowerSync(record, VmState.STOPPED)
        return PowerSync(record)
    if vm_state is VmState.STOPPED:
        running = actual not in _OFF and actual is not PowerState.NOSTATE
        return PowerSync(record, power_off_guest=running)
    if vm_state in (VmState.SOFT_DELETED, VmState.DELETED):
        return PowerSync(record, power_off_guest=actual not in (*_OFF, PowerState.NOSTATE))
    return PowerSync(record)
