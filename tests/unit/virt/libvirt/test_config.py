"""Domain XML from the typed config: it reads back equal and has the shape libvirt needs."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET

import pytest

from saphira.virt.errors import VirtError
from saphira.virt.libvirt.config import (
    METADATA_NS,
    DiskConfig,
    DomainConfig,
    DomainXMLError,
    GraphicsConfig,
    InterfaceConfig,
    SerialConsoleConfig,
    SpiceConfig,
    from_xml,
    to_xml,
)
from saphira.virt.libvirt.serial_ports import ports_in
from tests.unit.virt.libvirt.shapes import (
    ETHERNET,
    LINUX_BRIDGE,
    MAXIMAL,
    METADATA,
    MINIMAL,
    OVS,
    PORT_ID,
)

NS = {"saphira": METADATA_NS}


def tree(domain: DomainConfig) -> ET.Element:
    return ET.fromstring(to_xml(domain))


def test_the_maximal_shape_sets_every_field() -> None:
    left_default = [
        field.name
        for field in dataclasses.fields(DomainConfig)
        if getattr(MAXIMAL, field.name) == field.default
    ]
    assert left_default == ["arch"]  # x86_64 is the only architecture we run


@pytest.mark.parametrize(
    "domain",
    [
        MINIMAL,
        MAXIMAL,
        dataclasses.replace(MINIMAL, interfaces=(LINUX_BRIDGE,)),
        dataclasses.replace(MINIMAL, interfaces=(OVS,)),
        dataclasses.replace(MINIMAL, interfaces=(ETHERNET,)),
        dataclasses.replace(MINIMAL, interfaces=(dataclasses.replace(ETHERNET, mtu=9000),)),
        dataclasses.replace(MINIMAL, kernel="/k", initrd="/i", cmdline="console=ttyS0"),
        dataclasses.replace(MINIMAL, kernel="/k"),
        dataclasses.replace(MINIMAL, disks=(DiskConfig("/iso", "hdc", "raw", "ide", "cdrom"),)),
        dataclasses.replace(MINIMAL, graphics=GraphicsConfig("0.0.0.0")),
        dataclasses.replace(MINIMAL, serial=SerialConsoleConfig("/var/log/c.log")),
        dataclasses.replace(MINIMAL, metadata=dataclasses.replace(METADATA, name="")),
    ],
    ids=[
        "minimal",
        "maximal",
        "bridge",
        "ovs",
        "ethernet",
        "mtu",
        "kernel-boot",
        "kernel-only",
        "cdrom",
        "vnc-autoport",
        "serial",
        "empty-metadata-name",
    ],
)
def test_round_trip(domain: DomainConfig) -> None:
    assert from_xml(to_xml(domain)) == domain


def test_a_cdrom_is_always_readonly() -> None:
    cdrom = DiskConfig("/iso", "hdc", "raw", "ide", device="cdrom")
    assert cdrom.readonly
    assert cdrom == DiskConfig("/iso", "hdc", "raw", "ide", device="cdrom", readonly=True)
    disk = tree(dataclasses.replace(MINIMAL, disks=(cdrom,))).find("devices/disk[@device='cdrom']")
    assert disk is not None and disk.find("readonly") is not None
    assert DiskConfig("/d", "vda").readonly is False


def test_memory_is_written_in_kib() -> None:
    memory = tree(dataclasses.replace(MINIMAL, memory_mib=2048)).find("memory")
    assert memory is not None
    assert (memory.get("unit"), memory.text) == ("KiB", str(2048 * 1024))


def test_fixed_devices_and_features() -> None:
    root = tree(MINIMAL)
    assert root.get("type") == "qemu"
    assert root.find("features/acpi") is not None and root.find("features/apic") is not None
    assert root.find("clock[@offset='utc']") is not None
    assert root.find("devices/memballoon[@model='none']") is not None
    assert root.findtext("devices/rng[@model='virtio']/backend[@model='random']") == "/dev/urandom"
    assert root.find("cpu") is None
    assert root.find("os/boot[@dev='hd']") is not None


def test_video_and_tablet_only_with_graphics() -> None:
    without = tree(MINIMAL)
    assert without.find("devices/video") is None and without.find("devices/input") is None
    with_vnc = tree(dataclasses.replace(MINIMAL, graphics=GraphicsConfig("127.0.0.1")))
    assert with_vnc.find("devices/video/model[@type='vga']") is not None
    assert with_vnc.find("devices/input[@type='tablet'][@bus='usb']") is not None


def test_spice_beside_vnc_or_alone_with_its_agent_channel() -> None:
    both = dataclasses.replace(MINIMAL, graphics=GraphicsConfig("127.0.0.1"),
                               spice=SpiceConfig("192.0.2.5"))  # fmt: skip
    root = tree(both)
    assert root.find("devices/graphics[@type='vnc']") is not None
    spice = root.find("devices/graphics[@type='spice']")
    assert spice is not None and spice.get("autoport") == "yes"
    assert spice.find("listen[@type='address'][@address='192.0.2.5']") is not None
    channel = root.find("devices/channel[@type='spicevmc']/target")
    assert channel is not None and channel.get("name") == "com.redhat.spice.0"
    assert len(root.findall("devices/video")) == 1 and len(root.findall("devices/input")) == 1
    assert from_xml(to_xml(both)) == both
    alone = dataclasses.replace(MINIMAL, spice=SpiceConfig("127.0.0.1", 5930, agent=False))
    root = tree(alone)
    assert root.find("devices/graphics[@type='vnc']") is None
    assert root.find("devices/graphics[@type='spice'][@port='5930']") is not None
    assert root.find("devices/channel") is None and root.find("devices/video") is not None
    assert from_xml(to_xml(alone)) == alone


def test_vnc_autoport_unless_a_port_is_given() -> None:
    auto = tree(dataclasses.replace(MINIMAL, graphics=GraphicsConfig("127.0.0.1"))).find(
        "devices/graphics"
    )
    assert auto is not None
    assert (auto.get("type"), auto.get("autoport"), auto.get("port")) == ("vnc", "yes", None)
    assert auto.find("listen[@type='address'][@address='127.0.0.1']") is not None
    fixed = tree(MAXIMAL).find("devices/graphics")
    assert fixed is not None
    assert (fixed.get("autoport"), fixed.get("port"), fixed.get("keymap")) == (
        "no",
        "5901",
        "en-us",
    )


def test_ovs_interface_has_virtualport_with_the_port_id_and_checksums_off() -> None:
    nic = tree(dataclasses.replace(MINIMAL, interfaces=(OVS,))).find("devices/interface")
    assert nic is not None and nic.get("type") == "bridge"
    assert nic.find("source[@bridge='br-int']") is not None
    params = nic.find("virtualport[@type='openvswitch']/parameters")
    assert params is not None and params.get("interfaceid") == PORT_ID
    assert nic.find("driver/host[@csum='off']") is not None
    assert nic.find("driver/guest[@csum='off']") is not None
    assert nic.find("target[@dev='tap0d2b4c6e-12']") is not None
    assert nic.find("mtu[@size='1450']") is not None


def test_bridge_and_ethernet_interfaces_keep_offload_and_have_no_virtualport() -> None:
    root = tree(dataclasses.replace(MINIMAL, interfaces=(LINUX_BRIDGE, ETHERNET)))
    bridge, ethernet = root.findall("devices/interface")
    assert bridge.find("source[@bridge='brq1234']") is not None
    assert ethernet.get("type") == "ethernet" and ethernet.find("source") is None
    for nic in (bridge, ethernet):
        assert nic.find("virtualport") is None and nic.find("driver") is None
        assert nic.find("model[@type='virtio']") is not None


def test_serial_console_logs_to_the_file() -> None:
    root = tree(dataclasses.replace(MINIMAL, serial=SerialConsoleConfig("/x/console.log")))
    log = root.find("devices/serial[@type='pty']/log")
    assert log is not None and (log.get("file"), log.get("append")) == ("/x/console.log", "on")
    assert root.find("devices/serial/target[@port='0']") is not None
    assert root.find("devices/console[@type='pty']/target[@type='serial'][@port='0']") is not None


def test_a_tcp_serial_console_listens_raw_and_still_logs_to_the_file() -> None:
    serial = SerialConsoleConfig("/x/console.log", "192.0.2.5", 10007)
    domain = dataclasses.replace(MINIMAL, serial=serial)
    root = tree(domain)
    for tag in ("serial", "console"):
        source = root.find(f"devices/{tag}[@type='tcp']/source")
        assert source is not None, tag
        assert (source.get("mode"), source.get("host"), source.get("service")) == (
            "bind", "192.0.2.5", "10007")  # fmt: skip
        assert root.find(f"devices/{tag}/protocol[@type='raw']") is not None
    log = root.find("devices/serial[@type='tcp']/log")
    assert log is not None and (log.get("file"), log.get("append")) == ("/x/console.log", "on")
    assert root.find("devices/*[@type='pty']") is None
    assert from_xml(to_xml(domain)) == domain
    assert ports_in(to_xml(domain)) == {10007}
    assert ports_in(to_xml(dataclasses.replace(MINIMAL, serial=SerialConsoleConfig("/l")))) == set()


def test_metadata_lives_in_our_namespace_with_the_saphira_prefix() -> None:
    text = to_xml(dataclasses.replace(MINIMAL, metadata=METADATA))
    instance = ET.fromstring(text).find("metadata/saphira:instance", NS)
    assert instance is not None
    assert instance.findtext("saphira:name", namespaces=NS) == "web & <db>"
    assert instance.findtext("saphira:flavor", namespaces=NS) == "m1.tiny"
    assert instance.findtext("saphira:image", namespaces=NS) == METADATA.image_id
    assert f'xmlns:saphira="{METADATA_NS}"' in text


def test_direct_kernel_boot_elements() -> None:
    root = tree(MAXIMAL)
    assert root.findtext("os/kernel") == MAXIMAL.kernel
    assert root.findtext("os/initrd") == MAXIMAL.initrd
    assert root.findtext("os/cmdline") == MAXIMAL.cmdline
    assert root.find("os/type[@machine='pc-i440fx-7.2'][@arch='x86_64']") is not None
    assert root.find("cpu[@mode='host-passthrough']") is not None


@pytest.mark.parametrize(
    ("nic", "why"),
    [
        (InterfaceConfig("fa:16:3e:00:00:09", "network"), "kind 'network' unsupported"),
        (InterfaceConfig("fa:16:3e:00:00:09", "bridge"), "needs source_bridge"),
        (dataclasses.replace(ETHERNET, virtualport="openvswitch"), "takes no source_bridge"),
        (dataclasses.replace(OVS, virtualport="midonet"), "virtualport 'midonet' unsupported"),
        (dataclasses.replace(LINUX_BRIDGE, interface_id=PORT_ID), "needs a virtualport"),
        (dataclasses.replace(ETHERNET, mtu=0), "mtu 0 is not positive"),
    ],
)
def test_interfaces_libvirt_cannot_express_are_refused(nic: InterfaceConfig, why: str) -> None:
    with pytest.raises(DomainXMLError, match=why) as info:
        to_xml(dataclasses.replace(MINIMAL, interfaces=(nic,)))
    assert isinstance(info.value, VirtError)
    assert nic.mac in str(info.value)


def test_unknown_disk_device_is_refused() -> None:
    with pytest.raises(DomainXMLError, match="device 'floppy' unsupported"):
        to_xml(dataclasses.replace(MINIMAL, disks=(DiskConfig("/f", "fda", device="floppy"),)))
