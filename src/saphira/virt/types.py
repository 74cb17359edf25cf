"""Typed arguments and results of the driver interface (no dicts cross it)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
from collections.abc import Callable
from typing import Protocol

from saphira.clients.image import ImageData as ImageData
from saphira.clients.image import ImageStream as ImageStream
from saphira.domain.states import PowerState
from saphira.objects import Flavor


class RebootType(enum.StrEnum):
    SOFT = "SOFT"
    HARD = "HARD"


@dataclasses.dataclass(frozen=True)
class HostResources:
    """What one hypervisor (node) has and uses, for inventory and os-hypervisors."""

    hypervisor_hostname: str
    vcpus: int
    memory_mb: int
    local_gb: int
    vcpus_used: int = 0
    memory_mb_used: int = 0
    local_gb_used: int = 0
    hypervisor_type: str = "fake"
    hypervisor_version: int = 1000
    cpu_info: str = "{}"


@dataclasses.dataclass(frozen=True)
class InstanceInfo:
    state: PowerState
    internal_id: str = ""


@dataclasses.dataclass(frozen=True)
class ImageMeta:
    id: str
    name: str = ""
    disk_format: str = "qcow2"
    container_format: str = "bare"
    min_disk: int = 0
    min_ram: int = 0
    size: int = 0
    properties: tuple[tuple[str, str], ...] = ()


@dataclasses.dataclass(frozen=True)
class VIF:
    """One guest NIC: a bound port of the network service (the plug seam)."""

    id: str
    address: str
    network_id: str = ""
    vif_type: str = "bridge"
    bridge: str | None = None
    mtu: int | None = None
    fixed_ips: tuple[str, ...] = ()


NetworkInfo = tuple[VIF, ...]
# Blocks until the network service reported every new NIC of a starting guest
# plugged; raises VirtualInterfaceCreateFailed when one never came up in time.
VifPlugWait = Callable[[], None]


@dataclasses.dataclass(frozen=True)
class BlockDeviceInfo:
    root_device_name: str | None = None
    swap_mb: int = 0
    ephemeral_gb: int = 0


SnapshotUpload = Callable[[ImageData], None]


@dataclasses.dataclass(frozen=True)
class MigrationTarget:
    """Where the source sends a guest's disks: the destination's one-time receiver."""

    address: str
    port: int
    token: str


@dataclasses.dataclass(frozen=True)
class Migration:
    """A resize between (possibly the same) hosts."""

    uuid: str
    source_host: str
    source_node: str
    dest_host: str
    dest_node: str
    old_flavor: Flavor
    new_flavor: Flavor
    # The destination's receiver when the disks must move (another host).
    target: MigrationTarget | None = None


class LifecycleTransition(enum.StrEnum):
    STARTED = "started"
    STOPPED = "stopped"
    PAUSED = "paused"
    RESUMED = "resumed"
    SUSPENDED = "suspended"


@dataclasses.dataclass(frozen=True)
class LifecycleEvent:
    """The hypervisor saw a guest change on its own or by our hand; the agent's
    reconcile decides what it means (events only wake it)."""

    instance_uuid: str
    transition: LifecycleTransition
    at: dt.datetime


EventListener = Callable[[LifecycleEvent], None]


class ImageSource(Protocol):
    """Where a driver gets image bytes (the image service client, or a test's fake)."""

    def open(self, image_id: str) -> ImageStream: ...
