"""Domain configurations the libvirt config tests share."""

from __future__ import annotations

from saphira.virt.libvirt.config import (
    DiskConfig,
    DomainConfig,
    GraphicsConfig,
    InstanceMetadata,
    InterfaceConfig,
    SerialConsoleConfig,
    SpiceConfig,
)

DIR = "/var/lib/saphira/instances/x"
UUID = "6f1c2a7e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"
PORT_ID = "0d2b4c6e-1234-4abc-8def-0123456789ab"

MINIMAL = DomainConfig(
    name="instance-0000002a", uuid=UUID, virt_type="qemu", memory_mib=64, vcpus=1
)

LINUX_BRIDGE = InterfaceConfig(
    mac="fa:16:3e:00:00:01", kind="bridge", source_bridge="brq1234", target_dev="tapaaaa"
)
OVS = InterfaceConfig(
    mac="fa:16:3e:00:00:02",
    kind="bridge",
    source_bridge="br-int",
    target_dev="tap0d2b4c6e-12",
    mtu=1450,
    virtualport="openvswitch",
    interface_id=PORT_ID,
    checksum_offload=False,
)
ETHERNET = InterfaceConfig(mac="fa:16:3e:00:00:03", kind="ethernet", target_dev="tapcccc")

METADATA = InstanceMetadata(
    name="web & <db>",
    project_id="p" * 32,
    user_id="u" * 32,
    flavor_name="m1.tiny",
    image_id="9a8b7c6d-0000-4000-8000-000000000001",
    created="2026-11-29T23:00:00+00:00",
)

MAXIMAL = DomainConfig(
    name="instance-0000002b",
    uuid=UUID,
    virt_type="kvm",
    memory_mib=2048,
    vcpus=4,
    arch="x86_64",
    machine="pc-i440fx-7.2",
    boot_dev="cdrom",
    kernel=f"{DIR}/kernel",
    initrd=f"{DIR}/ramdisk",
    cmdline="console=ttyS0 quiet saphira.say='a & <b>'",
    cpu_mode="host-passthrough",
    disks=(
        DiskConfig(source=f"{DIR}/disk", target="vda"),
        DiskConfig(source=f"{DIR}/disk.eph0", target="vdb", driver_type="raw"),
        DiskConfig(
            source=f"{DIR}/disk.config",
            target="hdc",
            bus="ide",
            device="cdrom",
            driver_type="raw",
            readonly=True,
        ),
    ),
    interfaces=(LINUX_BRIDGE, OVS, ETHERNET),
    serial=SerialConsoleConfig(log_path=f"{DIR}/console.log"),
    graphics=GraphicsConfig(listen="127.0.0.1", port=5901, keymap="en-us"),
    spice=SpiceConfig(listen="127.0.0.1", port=5902, agent=True),
    metadata=METADATA,
    on_poweroff="preserve",
    on_reboot="destroy",
    on_crash="coredump-destroy",
)
