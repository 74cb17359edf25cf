"""The virt driver interface: what the compute agent may ask of a hypervisor.

Small on purpose (architecture rule 3). One driver object serves one
(host, node); a process simulating many hypervisors holds many. Every call
is synchronous and may block (threads, not eventlet); a failure raises a
``saphira.virt.errors.VirtError`` and must leave nothing half-built behind.
Optional operations raise NotImplementedError and the agent falls back (a
rebuild without ``rebuild`` is destroy + spawn, as in Nova).
"""

from __future__ import annotations

import abc
import datetime as dt
from typing import ClassVar, Self

from oslo_config import cfg

from saphira.exception import ConsoleTypeUnavailable
from saphira.objects import ConsoleEndpoint, ConsoleType, Flavor, Instance
from saphira.virt.types import (
    VIF,
    BlockDeviceInfo,
    EventListener,
    HostResources,
    ImageMeta,
    InstanceInfo,
    LifecycleEvent,
    LifecycleTransition,
    Migration,
    MigrationTarget,
    NetworkInfo,
    RebootType,
    SnapshotUpload,
    VifPlugWait,
)


class ComputeDriver(abc.ABC):
    # Whether spawn can start a guest paused and wait for its ports to be plugged
    # (the agent then registers network-vif-plugged events and passes the wait).
    wants_vif_plugged_events: ClassVar[bool] = False

    def __init__(self, host: str, node: str) -> None:
        self.host = host
        self.node = node
        self._listener: EventListener | None = None

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> list[Self]:
        """The drivers (one per node) this compute host runs."""
        return [cls(conf.host, conf.host)]

    # -- host -------------------------------------------------------------
    @abc.abstractmethod
    def init_host(self) -> None:
        """Check the hypervisor is usable; raise VirtError saying why not."""

    def cleanup_host(self) -> None:  # noqa: B027 - optional hook
        """Release connections at shutdown."""

    def healthy(self) -> bool:
        """Whether the hypervisor answers now (reconnecting if it can).

        The agent stops heartbeating while it does not, so the service shows
        down instead of accepting builds it cannot run.
        """
        return True

    def manage_image_cache(self) -> None:  # noqa: B027 - optional hook
        """Remove cached images no guest on this host uses any more."""

    @abc.abstractmethod
    def get_available_resource(self) -> HostResources: ...

    def get_host_uptime(self) -> str:
        """The host's uptime(1) line, for os-hypervisors (NotImplementedError: 501)."""
        raise NotImplementedError

    @abc.abstractmethod
    def list_instances(self) -> list[str]:
        """UUIDs of the guests this node has, whatever the database thinks."""

    @abc.abstractmethod
    def get_info(self, instance: Instance) -> InstanceInfo:
        """Raise GuestNotFound when the guest is not there."""

    # -- lifecycle ----------------------------------------------------------
    @abc.abstractmethod
    def spawn(
        self,
        instance: Instance,
        image_meta: ImageMeta,
        network_info: NetworkInfo,
        block_device_info: BlockDeviceInfo | None = None,
        *,
        vifs_plugged: VifPlugWait | None = None,
    ) -> None:
        """``vifs_plugged`` (only for drivers that want the events): start the guest
        paused, call it, and let the guest run only once it returned."""

    @abc.abstractmethod
    def destroy(self, instance: Instance, network_info: NetworkInfo) -> None:
        """Idempotent: destroying a missing guest succeeds."""

    @abc.abstractmethod
    def power_off(self, instance: Instance, timeout: int = 0) -> None:
        """Graceful for up to ``timeout`` seconds, then forced."""

    @abc.abstractmethod
    def power_on(self, instance: Instance, network_info: NetworkInfo) -> None: ...

    @abc.abstractmethod
    def reboot(
        self, instance: Instance, network_info: NetworkInfo, reboot_type: RebootType
    ) -> None: ...

    def rebuild(self, instance: Instance, image_meta: ImageMeta, network_info: NetworkInfo) -> None:
        raise NotImplementedError

    @abc.abstractmethod
    def pause(self, instance: Instance) -> None: ...

    @abc.abstractmethod
    def unpause(self, instance: Instance) -> None: ...

    @abc.abstractmethod
    def suspend(self, instance: Instance) -> None: ...

    @abc.abstractmethod
    def resume(self, instance: Instance, network_info: NetworkInfo) -> None: ...

    @abc.abstractmethod
    def snapshot(self, instance: Instance, image_id: str, upload: SnapshotUpload) -> None: ...

    # -- consoles -----------------------------------------------------------
    @abc.abstractmethod
    def get_console_output(self, instance: Instance) -> str: ...

    def get_console(self, instance: Instance, console_type: ConsoleType) -> ConsoleEndpoint:
        """Where the proxy reaches ``instance``'s console of ``console_type``: the
        guest's own VNC (SPICE, serial) server. ConsoleTypeUnavailable when this
        driver has no such console; ConsoleNotAvailable when the guest has none now."""
        raise ConsoleTypeUnavailable(console_type=console_type.value)

    # -- resize (migrate_disk_and_power_off on the source, finish_migration on
    # the destination, then confirm on the source or revert on both) ----------
    def prepare_migration_target(
        self, instance: Instance, migration: Migration
    ) -> MigrationTarget | None:
        """On the destination, before the source moves anything: where the source is
        to send the guest's disks, or None when nothing needs sending (this host's
        own resize, or a driver whose guests have no local files)."""
        return None

    @abc.abstractmethod
    def migrate_disk_and_power_off(
        self, instance: Instance, migration: Migration, flavor: Flavor, timeout: int = 0
    ) -> None: ...

    @abc.abstractmethod
    def finish_migration(
        self,
        instance: Instance,
        migration: Migration,
        image_meta: ImageMeta,
        network_info: NetworkInfo,
        power_on: bool,
    ) -> None: ...

    @abc.abstractmethod
    def confirm_migration(self, instance: Instance, migration: Migration) -> None: ...

    @abc.abstractmethod
    def finish_revert_migration(
        self, instance: Instance, migration: Migration, network_info: NetworkInfo, power_on: bool
    ) -> None: ...

    # -- NICs of a guest that exists (os-interface) ----------------------------
    def attach_interface(self, instance: Instance, vif: VIF) -> None:
        """Running or stopped; the NIC stays across restarts until detached, and a
        failure leaves the guest without it."""
        raise NotImplementedError

    def detach_interface(self, instance: Instance, vif: VIF) -> None:
        """A failure leaves the guest with it (the agent then keeps the port)."""
        raise NotImplementedError

    # -- events -------------------------------------------------------------
    def register_event_listener(self, listener: EventListener | None) -> None:
        """The agent's callback for guest lifecycle changes (None to stop)."""
        self._listener = listener

    def emit_event(self, instance_uuid: str, transition: LifecycleTransition) -> None:
        if self._listener is not None:
            now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
            self._listener(LifecycleEvent(instance_uuid, transition, now))
