"""Domain XML from a ``DomainConfig``, built with ElementTree (no templates,
so every value is escaped).

Beyond the model, every domain gets what the driver always wants: ACPI and
APIC (a soft shutdown is an ACPI power button press), a UTC clock, a virtio
RNG fed from /dev/urandom (guests under TCG would otherwise wait long for
entropy at boot) and no memory balloon (its stats polling is pure cost under
TCG). A VGA adapter and a USB tablet come only with graphics, since without a
display they only slow the boot down.
"""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET

from saphira.virt.libvirt.config_types import (
    METADATA_NS,
    METADATA_PREFIX,
    METADATA_TAGS,
    DiskConfig,
    DomainConfig,
    DomainXMLError,
    GraphicsConfig,
    InstanceMetadata,
    InterfaceConfig,
    SerialConsoleConfig,
    SpiceConfig,
    metadata_tag,
)

# ElementTree's prefix registry is process-wide; registering ours makes every
# serialisation write "saphira:" (as virsh shows it) instead of "ns0:".
ET.register_namespace(METADATA_PREFIX, METADATA_NS)

INTERFACE_KINDS = ("bridge", "ethernet")
DISK_DEVICES = ("disk", "cdrom")
VIRTUALPORTS = ("openvswitch",)


def to_xml(domain: DomainConfig) -> str:
    root = ET.Element("domain", type=domain.virt_type)
    _leaf(root, "name", domain.name)
    _leaf(root, "uuid", domain.uuid)
    if domain.metadata is not None:
        _metadata(ET.SubElement(root, "metadata"), domain.metadata)
    _leaf(root, "memory", str(domain.memory_mib * 1024), unit="KiB")
    _leaf(root, "vcpu", str(domain.vcpus))
    _os(ET.SubElement(root, "os"), domain)
    features = ET.SubElement(root, "features")
    ET.SubElement(features, "acpi")
    ET.SubElement(features, "apic")
    if domain.cpu_mode is not None:
        ET.SubElement(root, "cpu", mode=domain.cpu_mode)
    ET.SubElement(root, "clock", offset="utc")
    _leaf(root, "on_poweroff", domain.on_poweroff)
    _leaf(root, "on_reboot", domain.on_reboot)
    _leaf(root, "on_crash", domain.on_crash)
    _devices(ET.SubElement(root, "devices"), domain)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode")


def interface_xml(nic: InterfaceConfig) -> str:
    """One ``<interface>`` alone, as attachDeviceFlags and detachDeviceFlags take
    it: the same element a full domain carries for this NIC."""
    devices = ET.Element("devices")
    _interface(devices, nic)
    element = devices[0]
    ET.indent(element)
    return ET.tostring(element, encoding="unicode")


def _leaf(parent: ET.Element, tag: str, text: str, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, tag, attrs)
    element.text = text
    return element


def _metadata(parent: ET.Element, meta: InstanceMetadata) -> None:
    instance = ET.SubElement(parent, metadata_tag("instance"))
    values = dataclasses.asdict(meta)
    for tag, field in METADATA_TAGS:
        _leaf(instance, metadata_tag(tag), values[field])


def _os(parent: ET.Element, domain: DomainConfig) -> None:
    os_type = _leaf(parent, "type", "hvm", arch=domain.arch)
    if domain.machine is not None:
        os_type.set("machine", domain.machine)
    for tag, value in (
        ("kernel", domain.kernel),
        ("initrd", domain.initrd),
        ("cmdline", domain.cmdline),
    ):
        if value is not None:
            _leaf(parent, tag, value)
    ET.SubElement(parent, "boot", dev=domain.boot_dev)


def _devices(parent: ET.Element, domain: DomainConfig) -> None:
    for disk in domain.disks:
        _disk(parent, disk)
    for nic in domain.interfaces:
        _interface(parent, nic)
    if domain.serial is not None:
        _serial(parent, domain.serial)
    if domain.graphics is not None or domain.spice is not None:
        ET.SubElement(parent, "input", type="tablet", bus="usb")
    if domain.graphics is not None:
        _graphics(parent, domain.graphics)
    if domain.spice is not None:
        _spice(parent, domain.spice)
    if domain.graphics is not None or domain.spice is not None:
        ET.SubElement(ET.SubElement(parent, "video"), "model", type="vga")
    ET.SubElement(parent, "memballoon", model="none")
    rng = ET.SubElement(parent, "rng", model="virtio")
    _leaf(rng, "backend", "/dev/urandom", model="random")


def _disk(parent: ET.Element, disk: DiskConfig) -> None:
    if disk.device not in DISK_DEVICES:
        raise DomainXMLError(reason=f"disk {disk.target}: device {disk.device!r} unsupported")
    element = ET.SubElement(parent, "disk", type="file", device=disk.device)
    ET.SubElement(element, "driver", name="qemu", type=disk.driver_type)
    ET.SubElement(element, "source", file=disk.source)
    ET.SubElement(element, "target", dev=disk.target, bus=disk.bus)
    if disk.readonly:
        ET.SubElement(element, "readonly")


def _interface(parent: ET.Element, nic: InterfaceConfig) -> None:
    _check_interface(nic)
    element = ET.SubElement(parent, "interface", type=nic.kind)
    ET.SubElement(element, "mac", address=nic.mac)
    if nic.source_bridge is not None:
        ET.SubElement(element, "source", bridge=nic.source_bridge)
    if nic.virtualport is not None:
        port = ET.SubElement(element, "virtualport", type=nic.virtualport)
        if nic.interface_id is not None:
            ET.SubElement(port, "parameters", interfaceid=nic.interface_id)
    if nic.target_dev is not None:
        ET.SubElement(element, "target", dev=nic.target_dev)
    ET.SubElement(element, "model", type=nic.model)
    if not nic.checksum_offload:
        driver = ET.SubElement(element, "driver")
        ET.SubElement(driver, "host", csum="off")
        ET.SubElement(driver, "guest", csum="off")
    if nic.mtu is not None:
        ET.SubElement(element, "mtu", size=str(nic.mtu))


def _check_interface(nic: InterfaceConfig) -> None:
    """Refuse what libvirt would reject later with a less clear message, or
    silently ignore (a virtualport on a plain tap)."""
    problem = None
    if nic.kind not in INTERFACE_KINDS:
        problem = f"kind {nic.kind!r} unsupported (use one of {', '.join(INTERFACE_KINDS)})"
    elif nic.kind == "bridge" and nic.source_bridge is None:
        problem = "a bridge interface needs source_bridge"
    elif nic.kind == "ethernet" and (nic.source_bridge or nic.virtualport):
        problem = "an ethernet interface takes no source_bridge or virtualport"
    elif nic.virtualport is not None and nic.virtualport not in VIRTUALPORTS:
        problem = f"virtualport {nic.virtualport!r} unsupported"
    elif nic.interface_id is not None and nic.virtualport is None:
        problem = "interface_id needs a virtualport"
    elif nic.mtu is not None and nic.mtu <= 0:
        problem = f"mtu {nic.mtu} is not positive"
    if problem is not None:
        raise DomainXMLError(reason=f"interface {nic.mac}: {problem}")


def _serial(parent: ET.Element, serial: SerialConsoleConfig) -> None:
    kind = "pty" if serial.tcp_port is None else "tcp"
    for tag in ("serial", "console"):
        element = ET.SubElement(parent, tag, type=kind)
        if serial.tcp_port is not None:
            host = serial.tcp_host or "127.0.0.1"
            ET.SubElement(element, "source", mode="bind", host=host, service=str(serial.tcp_port))
            ET.SubElement(element, "protocol", type="raw")
        if tag == "serial":
            ET.SubElement(element, "log", file=serial.log_path, append="on")
            ET.SubElement(element, "target", port="0")
        else:
            ET.SubElement(element, "target", type="serial", port="0")


def _graphics(parent: ET.Element, graphics: GraphicsConfig) -> None:
    element = ET.SubElement(parent, "graphics", type="vnc", listen=graphics.listen)
    if graphics.port is None:
        element.set("autoport", "yes")
    else:
        element.set("port", str(graphics.port))
        element.set("autoport", "no")
    if graphics.keymap is not None:
        element.set("keymap", graphics.keymap)
    ET.SubElement(element, "listen", type="address", address=graphics.listen)


def _spice(parent: ET.Element, spice: SpiceConfig) -> None:
    element = ET.SubElement(parent, "graphics", type="spice", listen=spice.listen)
    if spice.port is None:
        element.set("autoport", "yes")
    else:
        element.set("port", str(spice.port))
        element.set("autoport", "no")
    ET.SubElement(element, "listen", type="address", address=spice.listen)
    if spice.agent:
        channel = ET.SubElement(parent, "channel", type="spicevmc")
        ET.SubElement(channel, "target", type="virtio", name="com.redhat.spice.0")
