"""The domain one instance gets: flavor, disks, kernel (a direct boot), console log,
VNC and NICs.

Built fresh from the instance on every (re)definition, so a resize or a
hard reboot applies what the database says, never a stale XML file.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from saphira.domain.direct_boot import DirectBoot
from saphira.objects import Flavor, Instance
from saphira.virt.libvirt.config import (
    DiskConfig,
    DomainConfig,
    GraphicsConfig,
    InstanceMetadata,
    SerialConsoleConfig,
    SpiceConfig,
)
from saphira.virt.libvirt.paths import InstanceFiles
from saphira.virt.libvirt.vif import interface
from saphira.virt.types import NetworkInfo


@dataclass(frozen=True)
class GuestSettings:
    virt_type: str  # "qemu" or "kvm", decided once at start by the KVM probe
    vnc_listen: str | None  # None: no graphics ([vnc] enabled = false)
    serial_listen: str | None = None  # a TCP serial port there ([serial_console] enabled)
    spice_listen: str | None = None  # SPICE graphics there ([spice] enabled), beside VNC
    spice_agent: bool = True  # [spice] agent_enabled: the spicevmc channel


def build(
    instance: Instance,
    flavor: Flavor,
    files: InstanceFiles,
    network_info: NetworkInfo,
    settings: GuestSettings,
    host: str,
    serial_port: int | None = None,
    *,
    config_drive: bool = False,
) -> DomainConfig:
    """``config_drive``: attach ``files.config_drive`` as a read-only CD-ROM (IDE,
    the bus of libvirt's default i440fx machine, as Nova attaches an ISO drive)."""
    disks = [DiskConfig(str(files.disk), "vda")]
    if flavor.ephemeral_gb:
        disks.append(DiskConfig(str(files.ephemeral), "vdb"))
    if config_drive:
        disks.append(DiskConfig(str(files.config_drive), "hda", "raw", "ide", "cdrom"))
    boot = DirectBoot.of(instance.system_metadata)
    graphics = GraphicsConfig(settings.vnc_listen) if settings.vnc_listen else None
    listen = settings.spice_listen
    spice = SpiceConfig(listen, None, settings.spice_agent) if listen else None
    return DomainConfig(
        name=instance.name,
        uuid=instance.uuid,
        virt_type=settings.virt_type,
        memory_mib=flavor.memory_mb,
        vcpus=flavor.vcpus,
        cpu_mode="host-passthrough" if settings.virt_type == "kvm" else None,
        disks=tuple(disks),
        kernel=str(files.kernel) if boot else None,
        initrd=str(files.ramdisk) if boot and boot.ramdisk_id else None,
        cmdline=boot.cmdline if boot else None,
        interfaces=tuple(interface(vif, host) for vif in network_info),
        serial=SerialConsoleConfig(str(files.console_log), settings.serial_listen, serial_port),
        graphics=graphics,
        spice=spice,
        metadata=InstanceMetadata(
            name=instance.display_name,
            project_id=instance.project_id,
            user_id=instance.user_id,
            flavor_name=flavor.name,
            image_id=instance.image_ref,
            created=(instance.created_at or dt.datetime.now(dt.UTC)).isoformat(),
        ),
    )
