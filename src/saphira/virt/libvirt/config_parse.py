"""A ``DomainConfig`` from domain XML: ours, or what libvirt's ``XMLDesc()``
returns, which adds controllers, addresses, aliases, default devices and
attributes. Only what the model holds is read; everything else is ignored.

Devices the model cannot hold are skipped rather than refused (a disk that is
not a file, a VNC display without a network address, a serial port without a
log), so a domain somebody else defined still reads.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

from saphira.virt.libvirt.config_types import (
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

MIB = 1024 * 1024
_PREFIXES = "kmgtpe"


def from_xml(text: str) -> DomainConfig:
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise DomainXMLError(reason=f"not XML: {exc}") from exc
    if root.tag != "domain":
        raise DomainXMLError(reason=f"root element is <{root.tag}>, not <domain>")
    os_el = _child(root, "os")
    os_type = _child(os_el, "type")
    boot = os_el.find("boot")
    cpu = root.find("cpu")
    devices = root.find("devices")
    devices = devices if devices is not None else ET.Element("devices")
    return DomainConfig(
        name=_text(root, "name"),
        uuid=_text(root, "uuid"),
        virt_type=_attr(root, "type"),
        memory_mib=_memory_mib(_child(root, "memory")),
        vcpus=_int(_text(root, "vcpu"), "vcpu"),
        arch=_attr(os_type, "arch"),
        machine=os_type.get("machine"),
        boot_dev="hd" if boot is None else _attr(boot, "dev"),
        kernel=os_el.findtext("kernel"),
        initrd=os_el.findtext("initrd"),
        cmdline=os_el.findtext("cmdline"),
        cpu_mode=None if cpu is None else cpu.get("mode"),
        disks=tuple(_disk(el) for el in devices.iterfind("disk") if _disk_file(el)),
        interfaces=tuple(_interface(el) for el in devices.iterfind("interface")),
        serial=_serial(devices),
        graphics=_graphics(devices),
        spice=_spice(devices),
        metadata=_metadata(root),
        on_poweroff=root.findtext("on_poweroff", "destroy"),
        on_reboot=root.findtext("on_reboot", "restart"),
        on_crash=root.findtext("on_crash", "destroy"),
    )


def _memory_mib(element: ET.Element) -> int:
    """The size in MiB, rounded up; libvirt's units (KiB when none is given,
    "k"/"KiB" binary, "KB" decimal, and so on up to exbibytes)."""
    unit = element.get("unit", "KiB").lower()
    if unit in ("b", "byte", "bytes"):
        scale = 1
    elif unit[:1] in _PREFIXES and unit[1:] in ("", "ib", "b"):
        base = 1000 if unit[1:] == "b" else 1024
        scale = base ** (_PREFIXES.index(unit[0]) + 1)
    else:
        raise DomainXMLError(reason=f"<{element.tag}> has unknown unit {unit!r}")
    size = _int(element.text or "", element.tag) * scale
    return math.ceil(size / MIB)


def _child(parent: ET.Element, tag: str) -> ET.Element:
    element = parent.find(tag)
    if element is None:
        raise DomainXMLError(reason=f"<{parent.tag}> has no <{tag}>")
    return element


def _text(parent: ET.Element, tag: str) -> str:
    text = _child(parent, tag).text
    if text is None:
        raise DomainXMLError(reason=f"<{tag}> in <{parent.tag}> is empty")
    return text


def _attr(element: ET.Element, name: str) -> str:
    value = element.get(name)
    if value is None:
        raise DomainXMLError(reason=f"<{element.tag}> has no {name!r} attribute")
    return value


def _int(value: str, what: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise DomainXMLError(reason=f"{what} {value!r} is not an integer") from None


def _disk_file(element: ET.Element) -> str | None:
    source = element.find("source")
    return None if source is None else source.get("file")


def _disk(element: ET.Element) -> DiskConfig:
    target = _child(element, "target")
    driver = element.find("driver")
    return DiskConfig(
        source=_attr(_child(element, "source"), "file"),
        target=_attr(target, "dev"),
        # Without a format libvirt opens the file as raw (it never probes).
        driver_type="raw" if driver is None else driver.get("type", "raw"),
        bus=target.get("bus", "virtio"),
        device=element.get("device", "disk"),
        readonly=element.find("readonly") is not None,
    )


def _interface(element: ET.Element) -> InterfaceConfig:
    source = element.find("source")
    target = element.find("target")
    model = element.find("model")
    mtu = element.find("mtu")
    port = element.find("virtualport")
    params = None if port is None else port.find("parameters")
    offloads = {
        el.get("csum") for el in element.iterfind("driver/*") if el.tag in ("host", "guest")
    }
    return InterfaceConfig(
        mac=_attr(_child(element, "mac"), "address"),
        kind=_attr(element, "type"),
        source_bridge=None if source is None else source.get("bridge"),
        target_dev=None if target is None else target.get("dev"),
        model="virtio" if model is None else model.get("type", "virtio"),
        mtu=None if mtu is None else _int(_attr(mtu, "size"), "mtu"),
        virtualport=None if port is None else port.get("type"),
        interface_id=None if params is None else params.get("interfaceid"),
        checksum_offload="off" not in offloads,
    )


def _serial(devices: ET.Element) -> SerialConsoleConfig | None:
    for serial in devices.iterfind("serial"):
        log = serial.find("log")
        if log is not None and log.get("file"):
            source = serial.find("source") if serial.get("type") == "tcp" else None
            if source is None or source.get("service") is None:
                return SerialConsoleConfig(_attr(log, "file"))
            port = _int(_attr(source, "service"), "serial port")
            return SerialConsoleConfig(_attr(log, "file"), source.get("host"), port)
    return None


def _graphics(devices: ET.Element) -> GraphicsConfig | None:
    for graphics in devices.iterfind("graphics[@type='vnc']"):
        address = graphics.find("listen[@type='address']")
        listen = graphics.get("listen") if address is None else address.get("address")
        if listen is None:
            continue
        # libvirt writes port='-1' for "not chosen yet" in a stopped domain.
        port = _int(graphics.get("port", "-1"), "VNC port")
        return GraphicsConfig(
            listen=listen, port=port if port >= 0 else None, keymap=graphics.get("keymap")
        )
    return None


def _spice(devices: ET.Element) -> SpiceConfig | None:
    for graphics in devices.iterfind("graphics[@type='spice']"):
        address = graphics.find("listen[@type='address']")
        listen = graphics.get("listen") if address is None else address.get("address")
        if listen is None:
            continue
        port = _int(graphics.get("port", "-1"), "SPICE port")
        agent = devices.find("channel[@type='spicevmc']") is not None
        return SpiceConfig(listen=listen, port=port if port >= 0 else None, agent=agent)
    return None


def _metadata(root: ET.Element) -> InstanceMetadata | None:
    instance = root.find(f"metadata/{metadata_tag('instance')}")
    if instance is None:
        return None
    values = {field: instance.findtext(metadata_tag(tag), "") for tag, field in METADATA_TAGS}
    return InstanceMetadata(**values)
