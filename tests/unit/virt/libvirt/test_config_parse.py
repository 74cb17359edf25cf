"""Reading domain XML the way libvirt returns it: expanded, with devices and
attributes we never wrote, which must be ignored."""

from __future__ import annotations

import pytest

from saphira.virt.libvirt.config import (
    DiskConfig,
    DomainConfig,
    DomainXMLError,
    GraphicsConfig,
    InstanceMetadata,
    InterfaceConfig,
    SerialConsoleConfig,
    from_xml,
    to_xml,
)

# `virsh dumpxml` of a running guest on Debian 12 (libvirt 9.0, QEMU 7.2, TCG),
# defined from our XML with an OVS port, a qcow2 disk and a config drive.
RUNNING = """\
<domain type='qemu' id='7'>
  <name>instance-0000002a</name>
  <uuid>6f1c2a7e-3b4d-4e5f-8a9b-0c1d2e3f4a5b</uuid>
  <metadata xmlns:saphira="http://saphira.dev/xmlns/instance/1.0">
    <saphira:instance>
      <saphira:name>vm1</saphira:name>
      <saphira:project>3f0c</saphira:project>
      <saphira:user>8d1e</saphira:user>
      <saphira:flavor>m1.nano</saphira:flavor>
      <saphira:image>9a8b7c6d-0000-4000-8000-000000000001</saphira:image>
      <saphira:created>2026-11-29T23:00:00+00:00</saphira:created>
    </saphira:instance>
  </metadata>
  <memory unit='KiB'>131072</memory>
  <currentMemory unit='KiB'>131072</currentMemory>
  <vcpu placement='static'>1</vcpu>
  <resource>
    <partition>/machine</partition>
  </resource>
  <os>
    <type arch='x86_64' machine='pc-i440fx-7.2'>hvm</type>
    <boot dev='hd'/>
  </os>
  <features>
    <acpi/>
    <apic/>
  </features>
  <cpu mode='custom' match='exact' check='full'>
    <model fallback='forbid'>qemu64</model>
    <feature policy='require' name='hypervisor'/>
  </cpu>
  <clock offset='utc'/>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>restart</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2'/>
      <source file='/var/lib/saphira/instances/6f1c/disk' index='2'/>
      <backingStore type='file' index='3'>
        <format type='raw'/>
        <source file='/var/lib/saphira/instances/_base/0a1b'/>
        <backingStore/>
      </backingStore>
      <target dev='vda' bus='virtio'/>
      <alias name='virtio-disk0'/>
      <address type='pci' domain='0x0000' bus='0x00' slot='0x04' function='0x0'/>
    </disk>
    <disk type='file' device='cdrom'>
      <driver name='qemu' type='raw'/>
      <source file='/var/lib/saphira/instances/6f1c/disk.config' index='1'/>
      <backingStore/>
      <target dev='hdc' bus='ide'/>
      <readonly/>
      <alias name='ide0-1-0'/>
      <address type='drive' controller='0' bus='1' target='0' unit='0'/>
    </disk>
    <controller type='usb' index='0' model='piix3-uhci'>
      <alias name='usb'/>
    </controller>
    <controller type='pci' index='0' model='pci-root'>
      <alias name='pci.0'/>
    </controller>
    <interface type='bridge'>
      <mac address='fa:16:3e:00:00:02'/>
      <source bridge='br-int'/>
      <virtualport type='openvswitch'>
        <parameters interfaceid='0d2b4c6e-1234-4abc-8def-0123456789ab'/>
      </virtualport>
      <target dev='tap0d2b4c6e-12'/>
      <model type='virtio'/>
      <driver>
        <host csum='off'/>
        <guest csum='off'/>
      </driver>
      <mtu size='1450'/>
      <alias name='net0'/>
      <address type='pci' domain='0x0000' bus='0x00' slot='0x03' function='0x0'/>
    </interface>
    <serial type='pty'>
      <source path='/dev/pts/0'/>
      <log file='/var/lib/saphira/instances/6f1c/console.log' append='on'/>
      <target type='isa-serial' port='0'>
        <model name='isa-serial'/>
      </target>
      <alias name='serial0'/>
    </serial>
    <console type='pty' tty='/dev/pts/0'>
      <source path='/dev/pts/0'/>
      <log file='/var/lib/saphira/instances/6f1c/console.log' append='on'/>
      <target type='serial' port='0'/>
      <alias name='serial0'/>
    </console>
    <input type='tablet' bus='usb'>
      <alias name='input0'/>
      <address type='usb' bus='0' port='1'/>
    </input>
    <input type='mouse' bus='ps2'>
      <alias name='input1'/>
    </input>
    <input type='keyboard' bus='ps2'>
      <alias name='input2'/>
    </input>
    <graphics type='vnc' port='5900' autoport='yes' listen='127.0.0.1'>
      <listen type='address' address='127.0.0.1'/>
    </graphics>
    <audio id='1' type='none'/>
    <video>
      <model type='vga' vram='16384' heads='1' primary='yes'/>
      <alias name='video0'/>
    </video>
    <memballoon model='none'/>
    <rng model='virtio'>
      <backend model='random'>/dev/urandom</backend>
      <alias name='rng0'/>
    </rng>
  </devices>
  <seclabel type='dynamic' model='dac' relabel='yes'>
    <label>+64055:+64055</label>
    <imagelabel>+64055:+64055</imagelabel>
  </seclabel>
</domain>
"""

BASE = "/var/lib/saphira/instances/6f1c"
EXPECTED = DomainConfig(
    name="instance-0000002a",
    uuid="6f1c2a7e-3b4d-4e5f-8a9b-0c1d2e3f4a5b",
    virt_type="qemu",
    memory_mib=128,
    vcpus=1,
    machine="pc-i440fx-7.2",
    cpu_mode="custom",
    disks=(
        DiskConfig(f"{BASE}/disk", "vda"),
        DiskConfig(f"{BASE}/disk.config", "hdc", "raw", "ide", "cdrom", readonly=True),
    ),
    interfaces=(
        InterfaceConfig(
            mac="fa:16:3e:00:00:02",
            kind="bridge",
            source_bridge="br-int",
            target_dev="tap0d2b4c6e-12",
            mtu=1450,
            virtualport="openvswitch",
            interface_id="0d2b4c6e-1234-4abc-8def-0123456789ab",
            checksum_offload=False,
        ),
    ),
    serial=SerialConsoleConfig(f"{BASE}/console.log"),
    graphics=GraphicsConfig(listen="127.0.0.1", port=5900),
    metadata=InstanceMetadata(
        "vm1",
        "3f0c",
        "8d1e",
        "m1.nano",
        "9a8b7c6d-0000-4000-8000-000000000001",
        "2026-11-29T23:00:00+00:00",
    ),
)


def test_a_running_guest_reads_back_with_its_vnc_port() -> None:
    assert from_xml(RUNNING) == EXPECTED


def test_a_stopped_guest_has_no_vnc_port_yet() -> None:
    stopped = RUNNING.replace("port='5900'", "port='-1'")
    graphics = from_xml(stopped).graphics
    assert graphics is not None and graphics.port is None


def test_listen_falls_back_to_the_attribute() -> None:
    text = RUNNING.replace("<listen type='address' address='127.0.0.1'/>", "")
    assert from_xml(text).graphics == GraphicsConfig("127.0.0.1", 5900)


@pytest.mark.parametrize(
    ("unit", "size", "mib"),
    [
        (None, "65536", 64),
        ("KiB", "65536", 64),
        ("k", "65536", 64),
        ("MiB", "64", 64),
        ("M", "64", 64),
        ("GiB", "2", 2048),
        ("b", str(64 * 1024 * 1024), 64),
        ("bytes", str(64 * 1024 * 1024), 64),
        ("MB", "64", 62),  # decimal megabytes, rounded up
        ("KB", "1000", 1),
    ],
)
def test_memory_in_any_libvirt_unit(unit: str | None, size: str, mib: int) -> None:
    unit_attr = "" if unit is None else f" unit='{unit}'"
    text = RUNNING.replace(
        "<memory unit='KiB'>131072</memory>", f"<memory{unit_attr}>{size}</memory>"
    )
    assert from_xml(text).memory_mib == mib


def test_devices_the_model_cannot_hold_are_skipped() -> None:
    extra = """
    <disk type='network' device='disk'>
      <source protocol='rbd' name='vms/x'/><target dev='vdb' bus='virtio'/>
    </disk>
    <disk type='file' device='cdrom'><target dev='hdd' bus='ide'/><readonly/></disk>
    <graphics type='spice' autoport='yes'/>
    <graphics type='vnc' socket='/run/vnc.sock'><listen type='socket'/></graphics>
    <serial type='pty'><target port='1'/></serial>
    <emulator>"""
    text = RUNNING.replace("<emulator>", extra, 1)
    assert from_xml(text) == EXPECTED


def test_a_domain_without_devices_or_metadata() -> None:
    minimal = """<domain type='qemu'><name>n</name><uuid>u</uuid>
      <memory>1024</memory><vcpu>2</vcpu><os><type arch='aarch64'>hvm</type></os></domain>"""
    assert from_xml(minimal) == DomainConfig("n", "u", "qemu", 1, 2, arch="aarch64")


def test_our_own_xml_of_the_expected_domain_matches_libvirts() -> None:
    assert from_xml(to_xml(EXPECTED)) == from_xml(RUNNING)


def test_interface_defaults_when_libvirt_leaves_things_out() -> None:
    nic = "<interface type='ethernet'><mac address='fa:16:3e:00:00:09'/></interface><emulator>"
    read = from_xml(RUNNING.replace("<emulator>", nic, 1)).interfaces[0]
    assert read == InterfaceConfig("fa:16:3e:00:00:09", "ethernet")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("<domain", "not XML"),
        ("<network/>", "root element is <network>"),
        (RUNNING.replace("<name>instance-0000002a</name>", ""), "<domain> has no <name>"),
        (RUNNING.replace("<vcpu placement='static'>1</vcpu>", "<vcpu>one</vcpu>"), "vcpu 'one'"),
        (RUNNING.replace("unit='KiB'>131072</memory>", "unit='parsec'>1</memory>"), "'parsec'"),
        (RUNNING.replace("<mtu size='1450'/>", "<mtu/>"), "<mtu> has no 'size'"),
        (RUNNING.replace("<uuid>6f1c2a7e-3b4d-4e5f-8a9b-0c1d2e3f4a5b</uuid>", "<uuid/>"), "empty"),
    ],
)
def test_unreadable_xml_is_a_domain_xml_error(text: str, why: str) -> None:
    with pytest.raises(DomainXMLError, match=why):
        from_xml(text)


def test_cdrom_without_readonly_element_still_reads_readonly() -> None:
    text = RUNNING.replace("<readonly/>", "")
    assert from_xml(text).disks == EXPECTED.disks
