"""The three state axes of an instance, with Nova's exact string/number values.

The values are what the database stores and what the API and notifications
show (``OS-EXT-STS:vm_state``, ``OS-EXT-STS:task_state``,
``OS-EXT-STS:power_state``), so they must never drift from Nova's.
"""

from __future__ import annotations

import enum


class VmState(enum.StrEnum):
    """Where an instance rests between actions."""

    ACTIVE = "active"
    BUILDING = "building"
    PAUSED = "paused"
    SUSPENDED = "suspended"
    STOPPED = "stopped"
    RESCUED = "rescued"
    RESIZED = "resized"
    SOFT_DELETED = "soft-delete"
    DELETED = "deleted"
    ERROR = "error"
    SHELVED = "shelved"
    SHELVED_OFFLOADED = "shelved_offloaded"


class TaskState(enum.StrEnum):
    """The action in flight, if any (None in the database when idle)."""

    SCHEDULING = "scheduling"
    BLOCK_DEVICE_MAPPING = "block_device_mapping"
    NETWORKING = "networking"
    SPAWNING = "spawning"
    IMAGE_SNAPSHOT = "image_snapshot"
    IMAGE_SNAPSHOT_PENDING = "image_snapshot_pending"
    IMAGE_PENDING_UPLOAD = "image_pending_upload"
    IMAGE_UPLOADING = "image_uploading"
    IMAGE_BACKUP = "image_backup"
    UPDATING_PASSWORD = "updating_password"
    RESIZE_PREP = "resize_prep"
    RESIZE_MIGRATING = "resize_migrating"
    RESIZE_MIGRATED = "resize_migrated"
    RESIZE_FINISH = "resize_finish"
    RESIZE_REVERTING = "resize_reverting"
    RESIZE_CONFIRMING = "resize_confirming"
    REBOOTING = "rebooting"
    REBOOT_PENDING = "reboot_pending"
    REBOOT_STARTED = "reboot_started"
    REBOOTING_HARD = "rebooting_hard"
    REBOOT_PENDING_HARD = "reboot_pending_hard"
    REBOOT_STARTED_HARD = "reboot_started_hard"
    PAUSING = "pausing"
    UNPAUSING = "unpausing"
    SUSPENDING = "suspending"
    RESUMING = "resuming"
    POWERING_OFF = "powering-off"
    POWERING_ON = "powering-on"
    RESCUING = "rescuing"
    UNRESCUING = "unrescuing"
    REBUILDING = "rebuilding"
    REBUILD_BLOCK_DEVICE_MAPPING = "rebuild_block_device_mapping"
    REBUILD_SPAWNING = "rebuild_spawning"
    MIGRATING = "migrating"
    DELETING = "deleting"
    SOFT_DELETING = "soft-deleting"
    RESTORING = "restoring"
    SHELVING = "shelving"
    SHELVING_IMAGE_PENDING_UPLOAD = "shelving_image_pending_upload"
    SHELVING_IMAGE_UPLOADING = "shelving_image_uploading"
    SHELVING_OFFLOADING = "shelving_offloading"
    UNSHELVING = "unshelving"


class PowerState(enum.IntEnum):
    """What the hypervisor says about the guest (Nova's numeric codes)."""

    NOSTATE = 0
    RUNNING = 1
    PAUSED = 3
    SHUTDOWN = 4
    CRASHED = 6
    SUSPENDED = 7

    @property
    def label(self) -> str:
        """Nova's lower-case name, as notifications and `server show` print it."""
        return self.name.lower() if self is not PowerState.NOSTATE else "pending"


# What the guest should be doing while an instance rests in a vm_state; the
# compute agent's reconcile compares this with what the driver reports.
EXPECTED_POWER: dict[VmState, frozenset[PowerState]] = {
    VmState.ACTIVE: frozenset({PowerState.RUNNING}),
    VmState.STOPPED: frozenset({PowerState.SHUTDOWN, PowerState.NOSTATE, PowerState.CRASHED}),
    VmState.PAUSED: frozenset({PowerState.PAUSED}),
    VmState.SUSPENDED: frozenset({PowerState.SUSPENDED, PowerState.SHUTDOWN}),
    VmState.RESIZED: frozenset({PowerState.RUNNING, PowerState.SHUTDOWN}),
    VmState.RESCUED: frozenset({PowerState.RUNNING}),
}
