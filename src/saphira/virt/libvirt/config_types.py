"""The domain model (import it from ``config``): frozen dataclasses holding
only what Saphira decides; libvirt adds the rest (addresses, controllers,
aliases, the emulator)."""

from __future__ import annotations

from dataclasses import dataclass

from saphira.virt.errors import VirtError

METADATA_NS = "http://saphira.dev/xmlns/instance/1.0"
METADATA_PREFIX = "saphira"
# Element under <saphira:instance> -> InstanceMetadata field; one table for
# the writer and the reader so the two cannot drift apart.
METADATA_TAGS = (
    ("name", "name"),
    ("project", "project_id"),
    ("user", "user_id"),
    ("flavor", "flavor_name"),
    ("image", "image_id"),
    ("created", "created"),
)


class DomainXMLError(VirtError):
    """Domain XML we cannot read, or a configuration libvirt could not express."""

    msg_fmt = "Bad libvirt domain XML: %(reason)s"


def metadata_tag(tag: str) -> str:
    """``tag`` in our metadata namespace, as ElementTree spells it."""
    return f"{{{METADATA_NS}}}{tag}"


@dataclass(frozen=True)
class DiskConfig:
    source: str
    target: str
    driver_type: str = "qcow2"
    bus: str = "virtio"
    device: str = "disk"
    readonly: bool = False

    def __post_init__(self) -> None:
        # libvirt treats every CD-ROM as read-only and says so in its XML; forcing
        # it here keeps a CD-ROM built either way equal to the one read back.
        if self.device == "cdrom" and not self.readonly:
            object.__setattr__(self, "readonly", True)


@dataclass(frozen=True)
class InterfaceConfig:
    """``kind`` "bridge" is a Linux bridge, or OVS with ``virtualport``
    "openvswitch" (then ``interface_id`` is the port id OVS records for the
    network agent); "ethernet" is a plain tap named ``target_dev``.
    ``checksum_offload=False`` turns virtio-net checksum offload off, which
    OVS's userspace datapath needs or the guest drops DHCP and TCP."""

    mac: str
    kind: str
    source_bridge: str | None = None
    target_dev: str | None = None
    model: str = "virtio"
    mtu: int | None = None
    virtualport: str | None = None
    interface_id: str | None = None
    checksum_offload: bool = True


@dataclass(frozen=True)
class SerialConsoleConfig:
    """A pty serial port whose output virtlogd also appends to ``log_path``
    (the console log the API serves), plus the matching console. With
    ``tcp_host`` and ``tcp_port`` (``[serial_console] enabled``) the port is a
    raw TCP listener there instead, for the serial console proxy; virtlogd
    still writes the log, as Nova keeps console.log with serial consoles on."""

    log_path: str
    tcp_host: str | None = None
    tcp_port: int | None = None


@dataclass(frozen=True)
class GraphicsConfig:
    """VNC on ``listen``. ``port=None`` lets libvirt pick a free port; a
    running guest's XML reports the chosen one, so ``from_xml`` fills it in.
    A port given here is fixed (``autoport='no'``)."""

    listen: str
    port: int | None = None
    keymap: str | None = None


@dataclass(frozen=True)
class SpiceConfig:
    """SPICE graphics on ``listen`` (libvirt picks the port, as for VNC; a running
    guest's XML reports it). ``agent`` adds the spicevmc channel the guest's
    SPICE agent talks through ([spice] agent_enabled)."""

    listen: str
    port: int | None = None
    agent: bool = True


@dataclass(frozen=True)
class InstanceMetadata:
    """Who owns the guest and what it was built from, kept in the domain's
    ``<metadata>`` so ``virsh dumpxml`` explains a guest without the database."""

    name: str
    project_id: str
    user_id: str
    flavor_name: str
    image_id: str
    created: str


@dataclass(frozen=True)
class DomainConfig:
    """``memory_mib`` is written in KiB; ``machine`` is kept as libvirt reports
    it (it expands "pc" to a versioned type such as "pc-i440fx-7.2")."""

    name: str
    uuid: str
    virt_type: str
    memory_mib: int
    vcpus: int
    arch: str = "x86_64"
    machine: str | None = None
    boot_dev: str = "hd"
    kernel: str | None = None
    initrd: str | None = None
    cmdline: str | None = None
    cpu_mode: str | None = None
    disks: tuple[DiskConfig, ...] = ()
    interfaces: tuple[InterfaceConfig, ...] = ()
    serial: SerialConsoleConfig | None = None
    graphics: GraphicsConfig | None = None
    spice: SpiceConfig | None = None
    metadata: InstanceMetadata | None = None
    on_poweroff: str = "destroy"
    on_reboot: str = "restart"
    on_crash: str = "destroy"
