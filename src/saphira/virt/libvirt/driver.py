"""LibvirtDriver: real QEMU/KVM guests through libvirt-python.

Each guest is a persistent domain named after the instance, with a qcow2
overlay over a cached, verified base image and a console log, all in the
instance's own directory. Every operation that builds something undoes it on
failure (the agent then reschedules or records a fault), and ``destroy``
removes the domain and the directory whatever state they are in.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import libvirt
from oslo_config import cfg

from saphira.clients.endpoints import image_locator
from saphira.clients.identity import PasswordToken
from saphira.clients.image import ImageClient
from saphira.domain.direct_boot import DirectBoot
from saphira.domain.states import PowerState
from saphira.exception import ConsoleNotAvailable, ConsoleTypeUnavailable
from saphira.objects import ConsoleEndpoint, ConsoleType, Flavor, Instance
from saphira.virt import configdrive, kvm_probe
from saphira.virt.driver import ComputeDriver
from saphira.virt.errors import GuestNotFound, VirtError
from saphira.virt.libvirt import disks, domain, guest, nics, resources, transfer
from saphira.virt.libvirt.config import from_xml, interface_xml, to_xml
from saphira.virt.libvirt.host import Host
from saphira.virt.libvirt.imagecache import BOOT_FILES, ImageCache
from saphira.virt.libvirt.paths import (
    QEMU_USER,
    InstanceFiles,
    blocking_ancestor,
    console_tail,
    copy_guest_dir,
    make_reachable_dir,
)
from saphira.virt.libvirt.serial_ports import SerialPorts, parse_range, ports_in
from saphira.virt.libvirt.vif import interface
from saphira.virt.types import (
    VIF,
    BlockDeviceInfo,
    HostResources,
    ImageData,
    ImageMeta,
    ImageSource,
    InstanceInfo,
    LifecycleTransition,
    Migration,
    MigrationTarget,
    NetworkInfo,
    RebootType,
    SnapshotUpload,
    VifPlugWait,
)

LOG = logging.getLogger(__name__)
CHUNK = 1024 * 1024
TEST_IMAGE_DIR = "test-image"  # where `saphira up` builds the tiny image: the KVM probe boots it
_UNDEFINE = (
    libvirt.VIR_DOMAIN_UNDEFINE_MANAGED_SAVE
    | libvirt.VIR_DOMAIN_UNDEFINE_SNAPSHOTS_METADATA
    | libvirt.VIR_DOMAIN_UNDEFINE_NVRAM
)
_EVENTS = {
    libvirt.VIR_DOMAIN_EVENT_STARTED: LifecycleTransition.STARTED,
    libvirt.VIR_DOMAIN_EVENT_RESUMED: LifecycleTransition.RESUMED,
    libvirt.VIR_DOMAIN_EVENT_SUSPENDED: LifecycleTransition.PAUSED,
    libvirt.VIR_DOMAIN_EVENT_STOPPED: LifecycleTransition.STOPPED,
    libvirt.VIR_DOMAIN_EVENT_PMSUSPENDED: LifecycleTransition.SUSPENDED,
}


@dataclass(frozen=True)
class Settings:
    instances_path: Path
    guest: domain.GuestSettings
    uri: str = ""
    vnc_proxyclient_address: str = "127.0.0.1"
    spice_proxyclient_address: str = "127.0.0.1"
    shutdown_timeout: int = 60
    console_bytes: int = 100 * 1024
    cache_subdir: str = "_base"
    remove_unused_bases: bool = True
    unused_base_min_age: int = 86400
    drive: configdrive.DriveSettings = field(default_factory=configdrive.DriveSettings)
    serial_ports: range = range(10000, 20001)  # [serial_console] port_range
    migration_address: str = "127.0.0.1"  # [DEFAULT] my_ip: where disks are received


class LibvirtDriver(ComputeDriver):
    wants_vif_plugged_events = True

    def __init__(self, host: str, node: str, settings: Settings, images: ImageSource) -> None:
        super().__init__(host, node)
        self.settings = settings
        self.cache = ImageCache(settings.instances_path / settings.cache_subdir, images)
        self._libvirt = Host(settings.uri, self._domain_event)
        self._receivers: dict[str, transfer.Receiver] = {}  # guests whose disks come here
        listen = settings.guest.serial_listen
        self.serial_ports = (
            None if listen is None else SerialPorts(listen, settings.serial_ports, self._tcp_ports)
        )

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> list[Self]:
        decision = kvm_probe.choose_virt_type(
            conf.libvirt.virt_type,
            Path(conf.state_path),
            kvm_probe.probe_guest_in(Path(conf.state_path) / TEST_IMAGE_DIR),
        )
        vnc = conf.vnc.server_listen if conf.vnc.enabled else None
        serial = conf.serial_console
        settings = Settings(
            instances_path=Path(conf.instances_path),
            guest=domain.GuestSettings(
                decision.virt_type,
                vnc,
                serial.proxyclient_address if serial.enabled else None,
                conf.spice.server_listen if conf.spice.enabled else None,
                conf.spice.agent_enabled,
            ),
            spice_proxyclient_address=conf.spice.server_proxyclient_address,
            serial_ports=parse_range(serial.port_range),
            uri=conf.libvirt.connection_uri,
            vnc_proxyclient_address=conf.vnc.server_proxyclient_address,
            shutdown_timeout=conf.shutdown_timeout,
            console_bytes=conf.libvirt.max_console_log_bytes,
            cache_subdir=conf.image_cache.subdirectory_name,
            remove_unused_bases=conf.image_cache.remove_unused_base_images,
            unused_base_min_age=conf.image_cache.remove_unused_original_minimum_age_seconds,
            drive=configdrive.DriveSettings.from_conf(conf),
            migration_address=conf.my_ip,
        )
        token = PasswordToken(conf.keystone_authtoken)
        images = ImageClient(image_locator(conf, token), token)
        return [cls(conf.host, conf.host, settings, images)]

    # -- host -------------------------------------------------------------
    def init_host(self) -> None:
        path = self.settings.instances_path
        make_reachable_dir(path)
        blocked = blocking_ancestor(path / "x")
        if blocked is not None:
            raise VirtError(
                host=self.host,
                reason=f"QEMU runs as {QEMU_USER} and cannot pass {blocked} "
                f"(mode {blocked.stat().st_mode & 0o777:o}) to reach instances_path {path}: "
                "choose another [DEFAULT] instances_path or let others traverse that directory",
            )
        make_reachable_dir(path / self.settings.cache_subdir)
        self._libvirt.start()
        LOG.info(
            "libvirt driver on %s: %s guests, instances in %s",
            self._libvirt.uri, self.settings.guest.virt_type, self.settings.instances_path,
        )  # fmt: skip

    def cleanup_host(self) -> None:
        self._libvirt.stop()

    def healthy(self) -> bool:
        return self._libvirt.alive()

    def manage_image_cache(self) -> None:
        """Bases that no overlay under instances_path (resize backups included) uses."""
        if not self.settings.remove_unused_bases:
            return
        in_use: set[Path] = set()
        for overlay in self.settings.instances_path.glob("*/disk*"):
            try:
                backing = disks.backing_file(overlay)
            except VirtError as error:  # unreadable now: keep every base this round
                LOG.warning("image cache: not cleaning up: %s", error.message)
                return
            if backing is not None:
                in_use.add(backing.resolve())
        for removed in self.cache.cleanup(in_use, self.settings.unused_base_min_age):
            LOG.info("image cache: removed unused base %s", removed.name)

    def get_available_resource(self) -> HostResources:
        return resources.host_resources(
            self._conn(), self.node, self.settings.instances_path, self.settings.guest.virt_type
        )

    def get_host_uptime(self) -> str:
        done = subprocess.run(
            ["uptime"], capture_output=True, text=True, env={"LANG": "C"}, check=False
        )
        return done.stdout.rstrip("\n")

    def list_instances(self) -> list[str]:
        """Guests whose files live in our instances_path: another cloud may share libvirtd."""
        mine = f"{self.settings.instances_path}/"
        return [
            dom.UUIDString()
            for dom in self._conn().listAllDomains(0)
            if any(d.source.startswith(mine) for d in from_xml(dom.XMLDesc(0)).disks)
        ]

    def get_info(self, instance: Instance) -> InstanceInfo:
        dom = self._domain(instance)
        return InstanceInfo(self._call(instance, guest.power_state, dom), dom.name())

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
        """With NICs and a wait: start paused (libvirt creates the taps, the L2 agent
        wires them), wait, then resume, so the guest's first DHCP request finds its
        port wired (Nova's _create_guest_with_network)."""
        files = self._files(instance)
        try:
            files.create()
            self._create_disks(instance, instance.flavor, image_meta, files)
            self._boot_files(instance, files)
            self._config_drive(instance, image_meta, files)
            dom = self._define(instance, instance.flavor, files, network_info)
            if network_info and vifs_plugged is not None:
                self._call(instance, dom.createWithFlags, libvirt.VIR_DOMAIN_START_PAUSED)
                vifs_plugged()
                self._call(instance, dom.resume)
            else:
                self._call(instance, dom.create)
        except BaseException:
            self._remove(instance, files)
            raise

    def destroy(self, instance: Instance, network_info: NetworkInfo) -> None:
        self._remove(instance, self._files(instance))

    def power_off(self, instance: Instance, timeout: int = 0) -> None:
        wait = self.settings.shutdown_timeout if timeout > 0 else 0
        self._call(instance, guest.shutdown, self._domain(instance), wait)

    def power_on(self, instance: Instance, network_info: NetworkInfo) -> None:
        dom = self._domain(instance)
        if not dom.isActive():
            self._call(instance, dom.create)

    def reboot(
        self, instance: Instance, network_info: NetworkInfo, reboot_type: RebootType
    ) -> None:
        """SOFT: ACPI power-off then start (forced after the timeout, as Nova
        falls back to hard); HARD: destroy, redefine from the instance, start."""
        dom = self._domain(instance)
        if reboot_type is RebootType.SOFT:
            self._call(instance, guest.shutdown, dom, self.settings.shutdown_timeout)
        else:
            self._call(instance, guest.force_off, dom)
            dom = self._define(instance, instance.flavor, self._files(instance), network_info)
        self._call(instance, dom.create)

    def rebuild(self, instance: Instance, image_meta: ImageMeta, network_info: NetworkInfo) -> None:
        """New root (and ephemeral) disk from the image; same domain, MAC and console log."""
        files = self._files(instance)
        self._call(instance, guest.force_off, self._domain(instance))
        for path in (files.disk, files.ephemeral):
            path.unlink(missing_ok=True)
        self._create_disks(instance, instance.flavor, image_meta, files)
        self._boot_files(instance, files)
        files.config_drive.unlink(missing_ok=True)
        self._config_drive(instance, image_meta, files)  # what the rebuild changed, as Nova
        dom = self._define(instance, instance.flavor, files, network_info)
        self._call(instance, dom.create)

    def pause(self, instance: Instance) -> None:
        self._call(instance, self._domain(instance).suspend)

    def unpause(self, instance: Instance) -> None:
        self._call(instance, self._domain(instance).resume)

    def suspend(self, instance: Instance) -> None:
        """Memory to disk (managed save); ``resume`` boots from it."""
        self._call(instance, self._domain(instance).managedSave, 0)

    def resume(self, instance: Instance, network_info: NetworkInfo) -> None:
        self._call(instance, self._domain(instance).create)

    def snapshot(self, instance: Instance, image_id: str, upload: SnapshotUpload) -> None:
        """A cold snapshot: the guest's memory is saved, its disk flattened, then it
        is restored as it was (running or paused), so the image is consistent."""
        dom, files = self._domain(instance), self._files(instance)
        state = self._call(instance, guest.power_state, dom)
        saved = state in (PowerState.RUNNING, PowerState.PAUSED)
        if saved:
            flags = libvirt.VIR_DOMAIN_SAVE_PAUSED if state is PowerState.PAUSED else 0
            self._call(instance, dom.managedSave, flags)
        flat = files.directory / f"snapshot-{image_id}.qcow2"
        try:
            disks.convert(files.disk, flat, "qcow2")
        finally:
            if saved:
                self._call(instance, dom.create)
        try:
            upload(ImageData("qcow2", "bare", _chunks(flat)))
        finally:
            flat.unlink(missing_ok=True)

    # -- consoles -----------------------------------------------------------
    def get_console_output(self, instance: Instance) -> str:
        self._domain(instance)
        return console_tail(self._files(instance).console_log, self.settings.console_bytes)

    def get_console(self, instance: Instance, console_type: ConsoleType) -> ConsoleEndpoint:
        """noVNC: the port the live domain's VNC graphics got (autoport), reached at
        ``[vnc] server_proxyclient_address`` as Nova does; serial: its TCP serial port."""
        if console_type is ConsoleType.SERIAL:
            return self._serial_console(instance)
        if console_type is ConsoleType.SPICE_HTML5:
            return self._spice_console(instance)
        if console_type is not ConsoleType.NOVNC or self.settings.guest.vnc_listen is None:
            raise ConsoleTypeUnavailable(console_type=console_type.value)  # [vnc] enabled off
        dom = self._domain(instance)
        graphics = from_xml(self._call(instance, dom.XMLDesc, 0)).graphics
        if graphics is None or not graphics.port or graphics.port < 0:
            raise ConsoleNotAvailable()  # no graphics, or the guest is not running
        return ConsoleEndpoint(self.settings.vnc_proxyclient_address, graphics.port)

    def _spice_console(self, instance: Instance) -> ConsoleEndpoint:
        """The port the live domain's SPICE graphics got, at server_proxyclient_address."""
        if self.settings.guest.spice_listen is None:
            raise ConsoleTypeUnavailable(console_type=ConsoleType.SPICE_HTML5.value)
        dom = self._domain(instance)
        spice = from_xml(self._call(instance, dom.XMLDesc, 0)).spice
        if spice is None or not spice.port:
            raise ConsoleNotAvailable()
        return ConsoleEndpoint(self.settings.spice_proxyclient_address, spice.port)

    def _serial_console(self, instance: Instance) -> ConsoleEndpoint:
        listen = self.settings.guest.serial_listen
        if listen is None:
            raise ConsoleTypeUnavailable(console_type=ConsoleType.SERIAL.value)
        dom = self._domain(instance)
        serial = from_xml(self._call(instance, dom.XMLDesc, 0)).serial
        if serial is None or serial.tcp_port is None or not dom.isActive():
            raise ConsoleNotAvailable()  # defined before serial consoles were on, or stopped
        return ConsoleEndpoint(serial.tcp_host or listen, serial.tcp_port)

    # -- resize: on this host the old directory is kept aside until confirm or
    # revert; to another host the disks are sent (transfer.py) and the source's
    # directory stays as it is until confirm (removed) or revert (started again)
    def prepare_migration_target(
        self, instance: Instance, migration: Migration
    ) -> MigrationTarget | None:
        if migration.source_host == self.host:
            return None
        files = self._files(instance)
        if files.directory.exists():
            raise VirtError(host=self.host, reason=f"{files.directory} is already there")
        self._close_receiver(instance.uuid)
        receiver = transfer.Receiver(files.directory, self.settings.migration_address, self.host)
        self._receivers[instance.uuid] = receiver
        return receiver.target

    def migrate_disk_and_power_off(
        self, instance: Instance, migration: Migration, flavor: Flavor, timeout: int = 0
    ) -> None:
        files = self._files(instance)
        if migration.dest_host != self.host and migration.target is None:
            raise VirtError(host=self.host, reason="the destination opened no receiver for "
                            "the disks (an older agent?)")  # fmt: skip
        self._call(instance, guest.shutdown, self._domain(instance), self.settings.shutdown_timeout)
        if migration.target is not None:
            moving = [files.directory / name for name in transfer.NAMES]
            transfer.send(migration.target, [p for p in moving if p.exists()], self.host)
            return
        backup = files.resize_backup
        backup.remove()
        files.directory.rename(backup.directory)
        copy_guest_dir(backup.directory, files.directory)

    def finish_migration(
        self,
        instance: Instance,
        migration: Migration,
        image_meta: ImageMeta,
        network_info: NetworkInfo,
        power_on: bool,
    ) -> None:
        files, flavor = self._files(instance), migration.new_flavor
        if migration.source_host != self.host:
            self._received(instance, image_meta, files)
            self._boot_files(instance, files)  # only the disks travel
        if flavor.root_gb * disks.GIB > disks.info(files.disk, "qcow2").virtual_size:
            disks.resize(files.disk, flavor.root_gb)
        if flavor.ephemeral_gb and not files.ephemeral.exists():
            disks.create_blank(files.ephemeral, flavor.ephemeral_gb)
        dom = self._define(instance, flavor, files, network_info)
        if power_on:
            self._call(instance, dom.create)

    def confirm_migration(self, instance: Instance, migration: Migration) -> None:
        files = self._files(instance)
        if migration.dest_host != self.host:  # the guest lives there now
            self._remove(instance, files)
        files.resize_backup.remove()

    def _received(self, instance: Instance, image_meta: ImageMeta, files: InstanceFiles) -> None:
        """The disks the source sent, on this host's copy of their image."""
        receiver = self._receivers.pop(instance.uuid, None)
        if receiver is None:
            raise VirtError(host=self.host, reason=f"{instance.uuid}: no disks were received")
        receiver.wait()
        if disks.backing_file(files.disk) is not None and image_meta.id:
            base = self.cache.fetch(image_meta.id)
            disks.rebase_unsafe(files.disk, base.path, base.disk_format)

    def _close_receiver(self, uuid: str) -> None:
        receiver = self._receivers.pop(uuid, None)
        if receiver is not None:
            receiver.close()

    def finish_revert_migration(
        self, instance: Instance, migration: Migration, network_info: NetworkInfo, power_on: bool
    ) -> None:
        files = self._files(instance)
        backup = files.resize_backup
        if backup.directory.exists():
            with contextlib.suppress(GuestNotFound):  # a libvirtd shared with the destination
                self._call(instance, guest.force_off, self._domain(instance))
            if files.console_log.exists():  # the log keeps the resized guest's history
                files.console_log.replace(backup.console_log)
            files.remove()
            backup.directory.rename(files.directory)
        dom = self._define(instance, migration.old_flavor, files, network_info)
        if power_on:
            self._call(instance, dom.create)

    # -- NICs of a defined guest: persistent always, live while it runs ----------
    def attach_interface(self, instance: Instance, vif: VIF) -> None:
        xml = interface_xml(interface(vif, self.host))
        self._call(instance, nics.attach, self._domain(instance), xml)

    def detach_interface(self, instance: Instance, vif: VIF) -> None:
        xml = interface_xml(interface(vif, self.host))
        if not self._call(instance, nics.detach, self._domain(instance), xml, vif.address):
            raise VirtError(
                host=self.host,
                reason=f"{instance.uuid}: the guest did not release NIC {vif.address} "
                f"within {nics.DETACH_TIMEOUT:g} s",
            )

    # -- internals -----------------------------------------------------------
    def _conn(self) -> Any:
        return self._libvirt.conn()

    def _files(self, instance: Instance) -> InstanceFiles:
        return InstanceFiles.of(self.settings.instances_path, instance.uuid)

    def _domain(self, instance: Instance) -> Any:
        try:
            return self._conn().lookupByUUIDString(instance.uuid)
        except libvirt.libvirtError as error:
            if error.get_error_code() == libvirt.VIR_ERR_NO_DOMAIN:
                raise GuestNotFound(name=instance.uuid, host=self.host) from None
            raise VirtError(host=self.host, reason=str(error)) from None

    def _call(self, instance: Instance, fn: Any, *args: Any) -> Any:
        """Run one libvirt call; its error becomes a VirtError naming the guest."""
        try:
            return fn(*args)
        except libvirt.libvirtError as error:
            raise VirtError(host=self.host, reason=f"{instance.uuid}: {error}") from None

    def _create_disks(
        self, instance: Instance, flavor: Flavor, image_meta: ImageMeta, files: InstanceFiles
    ) -> None:
        if not image_meta.id:
            raise VirtError(host=self.host, reason=f"{instance.uuid}: no image to boot from")
        base = self.cache.fetch(image_meta.id)
        disks.create_overlay(base.path, base.disk_format, files.disk, flavor.root_gb)
        if flavor.ephemeral_gb:
            disks.create_blank(files.ephemeral, flavor.ephemeral_gb)

    def _boot_files(self, instance: Instance, files: InstanceFiles) -> None:
        """A directly booted guest's kernel and ramdisk, copied from this host's
        cache into its directory (Nova's ``kernel`` and ``ramdisk``); a guest that
        boots from its disk keeps none."""
        boot = DirectBoot.of(instance.system_metadata)
        wanted = {files.kernel: boot.kernel_id if boot else None,
                  files.ramdisk: boot.ramdisk_id if boot else None}  # fmt: skip
        for path, image_id in wanted.items():
            path.unlink(missing_ok=True)
            if image_id is not None:
                shutil.copyfile(self.cache.fetch(image_id, BOOT_FILES).path, path)
                path.chmod(0o644)  # read by QEMU's user

    def _config_drive(self, instance: Instance, image: ImageMeta, files: InstanceFiles) -> None:
        if configdrive.required(instance, image, self.settings.drive.force):
            configdrive.write(files.config_drive, instance, self.settings.drive)

    def _define(
        self, instance: Instance, flavor: Flavor, files: InstanceFiles, network_info: NetworkInfo
    ) -> Any:
        if self.serial_ports is None:
            return self._define_with(instance, flavor, files, network_info, None)
        kept = self._serial_port_of(instance)  # a redefinition keeps its guest's port
        if kept is not None:
            return self._define_with(instance, flavor, files, network_info, kept)
        with self.serial_ports.reserve() as port:
            return self._define_with(instance, flavor, files, network_info, port)

    def _define_with(
        self,
        instance: Instance,
        flavor: Flavor,
        files: InstanceFiles,
        network_info: NetworkInfo,
        serial_port: int | None,
    ) -> Any:
        settings = self.settings.guest
        config = domain.build(
            instance, flavor, files, network_info, settings, self.host, serial_port,
            config_drive=files.config_drive.exists(),
        )  # fmt: skip
        xml = to_xml(config)
        files.domain_xml.write_text(xml)
        return self._call(instance, self._conn().defineXML, xml)

    def _serial_port_of(self, instance: Instance) -> int | None:
        try:
            dom = self._domain(instance)
        except GuestNotFound:
            return None
        serial = from_xml(self._call(instance, dom.XMLDesc, 0)).serial
        return None if serial is None else serial.tcp_port

    def _tcp_ports(self) -> set[int]:
        """Serial ports every domain on this libvirtd holds (another cloud's too)."""
        taken: set[int] = set()
        for dom in self._conn().listAllDomains(0):
            with contextlib.suppress(libvirt.libvirtError):  # gone meanwhile
                taken |= ports_in(dom.XMLDesc(0))
        return taken

    def _remove(self, instance: Instance, files: InstanceFiles) -> None:
        """Domain (with managed save), directory and resize backup; idempotent. A
        domain whose disks are not ours is left alone: two hosts sharing one libvirtd
        (the test bed) both see a guest that moved between them."""
        self._close_receiver(instance.uuid)
        try:
            dom = self._domain(instance)
        except GuestNotFound:
            dom = None
        if dom is not None and self._ours(instance, dom):
            self._call(instance, guest.force_off, dom)
            self._call(instance, _undefine, dom)
        files.remove()
        files.resize_backup.remove()

    def _ours(self, instance: Instance, dom: Any) -> bool:
        mine = f"{self.settings.instances_path}/"
        found = from_xml(self._call(instance, dom.XMLDesc, 0)).disks
        return not found or any(d.source.startswith(mine) for d in found)

    def _domain_event(self, uuid: str, event: int, detail: int) -> None:
        transition = _EVENTS.get(event)
        if event == libvirt.VIR_DOMAIN_EVENT_STOPPED and (
            detail == libvirt.VIR_DOMAIN_EVENT_STOPPED_SAVED
        ):
            transition = LifecycleTransition.SUSPENDED
        if transition is not None:
            self.emit_event(uuid, transition)


def _undefine(dom: Any) -> None:
    try:
        dom.undefineFlags(_UNDEFINE)
    except libvirt.libvirtError as error:
        if error.get_error_code() != libvirt.VIR_ERR_NO_DOMAIN:
            raise


def _chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as data:
        while chunk := data.read(CHUNK):
            yield chunk
