"""FakeDriver: one simulated hypervisor (host, node) with in-memory guests.

Every operation first asks the shared FaultInjector whether to fail, then
optionally waits ``delay`` seconds (through an injectable ``sleep``), then
changes the guest and emits the lifecycle event a real hypervisor would.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol, Self

from oslo_config import cfg

from saphira.domain.states import PowerState
from saphira.exception import ConsoleTypeUnavailable
from saphira.objects import ConsoleEndpoint, ConsoleType, Flavor, Instance
from saphira.virt.driver import ComputeDriver
from saphira.virt.errors import GuestNotFound, VirtError
from saphira.virt.fake.faults import FaultInjector
from saphira.virt.fake.guests import FakeGuest
from saphira.virt.fake.rfb import RfbServer
from saphira.virt.fake.serial import SerialServer
from saphira.virt.fake.spice import SpiceServer
from saphira.virt.types import (
    VIF,
    BlockDeviceInfo,
    HostResources,
    ImageData,
    ImageMeta,
    InstanceInfo,
    LifecycleTransition,
    Migration,
    NetworkInfo,
    RebootType,
    SnapshotUpload,
    VifPlugWait,
)

_T = LifecycleTransition


def _consoles(conf: cfg.ConfigOpts) -> frozenset[ConsoleType]:
    """noVNC always (the fake guest has no graphics to switch off); SPICE and serial
    when ``[spice]`` / ``[serial_console]`` are enabled."""
    on = {
        ConsoleType.SPICE_HTML5: conf.spice.enabled,
        ConsoleType.SERIAL: conf.serial_console.enabled,
    }
    return frozenset({ConsoleType.NOVNC, *(kind for kind, enabled in on.items() if enabled)})


class ConsoleServer(Protocol):
    """A fake guest's console listener (RFB, SPICE link, serial)."""

    @property
    def port(self) -> int: ...

    def stop(self) -> None: ...


UPTIME = " 00:00:00 up 0 min,  0 users,  load average: 0.00, 0.00, 0.00"


class FakeDriver(ComputeDriver):
    def __init__(
        self,
        host: str,
        node: str,
        *,
        resources: tuple[int, int, int] = (8, 16384, 200),
        faults: FaultInjector | None = None,
        delay: float = 0.0,
        console_lines: int = 1000,
        sleep: Callable[[float], None] = time.sleep,
        consoles: frozenset[ConsoleType] = frozenset({ConsoleType.NOVNC}),
    ) -> None:
        super().__init__(host, node)
        self.consoles = consoles  # as libvirt: SPICE and serial only when enabled
        self.vcpus, self.memory_mb, self.local_gb = resources
        self.faults = faults if faults is not None else FaultInjector()
        self.delay, self.console_lines, self._sleep = delay, console_lines, sleep
        self.guests: dict[str, FakeGuest] = {}
        self._vnc: dict[str, ConsoleServer] = {}  # uuid -> the guest's VNC server, once asked
        self._serial: dict[str, ConsoleServer] = {}  # uuid -> its TCP serial, once asked
        self._spice: dict[str, ConsoleServer] = {}  # uuid -> its SPICE server, once asked
        self._lock = threading.Lock()
        self.started = False

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> list[Self]:
        """One driver per ``[fake_driver] nodes`` entry, sharing one injector."""
        group = conf.fake_driver
        faults = FaultInjector.from_conf(conf)
        return [
            cls(
                conf.host,
                node,
                resources=(group.vcpus, group.memory_mb, group.local_gb),
                faults=faults,
                delay=group.delay,
                console_lines=group.console_lines,
                consoles=_consoles(conf),
            )
            for node in (group.nodes or [conf.host])
        ]

    @classmethod
    def fleet(
        cls,
        hosts: list[str],
        faults: FaultInjector | None = None,
        resources: tuple[int, int, int] = (8, 16384, 200),
    ) -> dict[str, Self]:
        """Many simulated hypervisors in one process (one per host), for scale tests."""
        shared = faults if faults is not None else FaultInjector()
        return {host: cls(host, host, resources=resources, faults=shared) for host in hosts}

    # -- host -------------------------------------------------------------
    def init_host(self) -> None:
        self.started = True

    def cleanup_host(self) -> None:
        """The service stops: every guest's console listener goes with it (a page that
        asked for a console leaves no listener thread behind)."""
        with self._lock:
            uuids = {*self._vnc, *self._spice, *self._serial}
        for uuid in uuids:
            self._drop_console(uuid)

    def get_available_resource(self) -> HostResources:
        with self._lock:
            flavors = [guest.flavor for guest in self.guests.values()]
        return HostResources(
            hypervisor_hostname=self.node,
            vcpus=self.vcpus,
            memory_mb=self.memory_mb,
            local_gb=self.local_gb,
            vcpus_used=sum(f.vcpus for f in flavors),
            memory_mb_used=sum(f.memory_mb for f in flavors),
            local_gb_used=sum(f.root_gb + f.ephemeral_gb for f in flavors),
        )

    def get_host_uptime(self) -> str:
        """Deterministic, shaped like uptime(1), so API tests can compare it."""
        return UPTIME

    def list_instances(self) -> list[str]:
        with self._lock:
            return sorted(self.guests)

    def get_info(self, instance: Instance) -> InstanceInfo:
        self._step("get_info", instance)
        return InstanceInfo(self._guest(instance).power_state, instance.uuid)

    # -- lifecycle ----------------------------------------------------------
    def spawn(
        self,
        instance: Instance,
        image_meta: ImageMeta,
        network_info: NetworkInfo,
        block_device_info: BlockDeviceInfo | None = None,
        *,
        vifs_plugged: VifPlugWait | None = None,
    ) -> None:
        """Simulated NICs are never plugged anywhere: nothing to wait for."""
        self._step("spawn", instance)
        guest = FakeGuest(
            instance.uuid, instance.name, instance.flavor, image_meta.id, self.console_lines
        )
        guest.vifs = [vif.id for vif in network_info]
        with self._lock:
            if instance.uuid in self.guests:
                raise VirtError(host=self.host, reason=f"guest {instance.uuid} already exists")
            self.guests[instance.uuid] = guest
        guest.boot()
        self.emit_event(instance.uuid, _T.STARTED)

    def destroy(self, instance: Instance, network_info: NetworkInfo) -> None:
        self._step("destroy", instance)
        self._drop_console(instance.uuid)
        with self._lock:
            gone = self.guests.pop(instance.uuid, None)
        if gone is not None and gone.power_state is not PowerState.SHUTDOWN:
            self.emit_event(instance.uuid, _T.STOPPED)

    def power_off(self, instance: Instance, timeout: int = 0) -> None:
        self._change("power_off", instance, PowerState.SHUTDOWN, _T.STOPPED, "[fake] power down")

    def power_on(self, instance: Instance, network_info: NetworkInfo) -> None:
        self._step("power_on", instance)
        self._guest(instance).boot()
        self.emit_event(instance.uuid, _T.STARTED)

    def reboot(
        self, instance: Instance, network_info: NetworkInfo, reboot_type: RebootType
    ) -> None:
        self._step("reboot", instance)
        guest = self._guest(instance)
        guest.say(f"[fake] {reboot_type.value.lower()} reboot")
        guest.boot()
        self.emit_event(instance.uuid, _T.STARTED)

    def rebuild(self, instance: Instance, image_meta: ImageMeta, network_info: NetworkInfo) -> None:
        self._step("rebuild", instance)
        guest = self._guest(instance)
        guest.image_id = image_meta.id
        guest.say(f"[fake] rebuilt from image {image_meta.id}")
        guest.boot()

    def pause(self, instance: Instance) -> None:
        self._change("pause", instance, PowerState.PAUSED, _T.PAUSED, "[fake] paused")

    def unpause(self, instance: Instance) -> None:
        self._change("unpause", instance, PowerState.RUNNING, _T.RESUMED, "[fake] unpaused")

    def suspend(self, instance: Instance) -> None:
        self._change("suspend", instance, PowerState.SUSPENDED, _T.SUSPENDED, "[fake] suspended")

    def resume(self, instance: Instance, network_info: NetworkInfo) -> None:
        self._change("resume", instance, PowerState.RUNNING, _T.RESUMED, "[fake] resumed")

    def snapshot(self, instance: Instance, image_id: str, upload: SnapshotUpload) -> None:
        self._step("snapshot", instance)
        guest = self._guest(instance)
        content = f"fake disk of {guest.uuid} from {guest.image_id}\n".encode()
        upload(ImageData("raw", "bare", [content]))
        guest.say(f"[fake] snapshot {image_id}")

    # -- consoles -----------------------------------------------------------
    def get_console_output(self, instance: Instance) -> str:
        return "".join(line + "\n" for line in self._guest(instance).console)

    def get_console(self, instance: Instance, console_type: ConsoleType) -> ConsoleEndpoint:
        """noVNC: the guest's own minimal RFB server on 127.0.0.1; SPICE: a server
        answering the link message; serial: its TCP serial port printing a login
        prompt; each started on first use."""
        if console_type not in self.consoles:
            raise ConsoleTypeUnavailable(console_type=console_type.value)
        guest = self._guest(instance)
        kinds: dict[ConsoleType, tuple[dict[str, ConsoleServer], Callable[[str], ConsoleServer]]]
        kinds = {ConsoleType.NOVNC: (self._vnc, RfbServer),
                 ConsoleType.SPICE_HTML5: (self._spice, SpiceServer),
                 ConsoleType.SERIAL: (self._serial, SerialServer)}  # fmt: skip
        servers, make = kinds[console_type]
        with self._lock:
            server = servers.get(guest.uuid)
            if server is None:
                server = servers[guest.uuid] = make(guest.name)
        return ConsoleEndpoint("127.0.0.1", server.port)

    def _drop_console(self, uuid: str) -> None:
        with self._lock:
            servers = [kind.pop(uuid, None) for kind in (self._vnc, self._spice, self._serial)]
        for server in servers:
            if server is not None:
                server.stop()

    # -- resize ---------------------------------------------------------------
    def migrate_disk_and_power_off(
        self, instance: Instance, migration: Migration, flavor: Flavor, timeout: int = 0
    ) -> None:
        self._change(
            "migrate_disk_and_power_off", instance, PowerState.SHUTDOWN, _T.STOPPED,
            f"[fake] migrating to {migration.dest_host} as {flavor.name}",
        )  # fmt: skip

    def finish_migration(
        self,
        instance: Instance,
        migration: Migration,
        image_meta: ImageMeta,
        network_info: NetworkInfo,
        power_on: bool,
    ) -> None:
        self._step("finish_migration", instance)
        with self._lock:
            guest = self.guests.get(instance.uuid)
            if guest is None:
                guest = FakeGuest(
                    instance.uuid, instance.name, migration.new_flavor, image_meta.id,
                    self.console_lines, PowerState.SHUTDOWN,
                )  # fmt: skip
                self.guests[instance.uuid] = guest
        guest.flavor = migration.new_flavor
        guest.vifs = [vif.id for vif in network_info]
        if power_on:
            guest.boot()
            self.emit_event(instance.uuid, _T.STARTED)

    def confirm_migration(self, instance: Instance, migration: Migration) -> None:
        """On the source: drop the old guest (same host: it is the resized one)."""
        self._step("confirm_migration", instance)
        if migration.source_node != migration.dest_node:
            self._drop_console(instance.uuid)
            with self._lock:
                self.guests.pop(instance.uuid, None)

    def finish_revert_migration(
        self, instance: Instance, migration: Migration, network_info: NetworkInfo, power_on: bool
    ) -> None:
        self._step("finish_revert_migration", instance)
        guest = self._guest(instance)
        guest.flavor = migration.old_flavor
        if power_on:
            guest.boot()
            self.emit_event(instance.uuid, _T.STARTED)

    # -- NICs (the guest's list is what a hypervisor would show) ----------------
    def attach_interface(self, instance: Instance, vif: VIF) -> None:
        self._step("attach_interface", instance)
        guest = self._guest(instance)
        with self._lock:
            if vif.id in guest.vifs:
                raise VirtError(host=self.host, reason=f"{instance.uuid} already has port {vif.id}")
            guest.vifs.append(vif.id)
        guest.say(f"[fake] NIC {vif.address} (port {vif.id}) plugged")

    def detach_interface(self, instance: Instance, vif: VIF) -> None:
        self._step("detach_interface", instance)
        guest = self._guest(instance)
        with self._lock:
            if vif.id not in guest.vifs:
                why = f"{instance.uuid} has no NIC of port {vif.id}"
                raise VirtError(host=self.host, reason=why)
            guest.vifs.remove(vif.id)
        guest.say(f"[fake] NIC {vif.address} (port {vif.id}) unplugged")

    # -- helpers --------------------------------------------------------------
    def _step(self, operation: str, instance: Instance) -> None:
        self.faults.check(operation, self.host, instance.display_name, instance.uuid)
        if self.delay:
            self._sleep(self.delay)

    def _guest(self, instance: Instance) -> FakeGuest:
        with self._lock:
            guest = self.guests.get(instance.uuid)
        if guest is None:
            raise GuestNotFound(name=instance.uuid, host=self.host, reason="no such guest")
        return guest

    def _change(self, op: str, instance: Instance, power: PowerState, event: _T, line: str) -> None:
        self._step(op, instance)
        guest = self._guest(instance)
        guest.power_state = power
        guest.say(line)
        self.emit_event(instance.uuid, event)
