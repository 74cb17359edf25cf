"""Our domain XML against the real libvirtd: it is accepted, and what libvirt
gives back reads as what we defined, except for the values libvirt expands."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path

import pytest

from saphira.virt.libvirt.config import (
    DiskConfig,
    DomainConfig,
    GraphicsConfig,
    InstanceMetadata,
    InterfaceConfig,
    SerialConsoleConfig,
    from_xml,
)
from tests.integration.libvirt.conftest import NAME_PREFIX, Define

pytestmark = pytest.mark.integration


def unique(label: str) -> tuple[str, str]:
    """A fresh name and uuid, so parallel runs never collide on this host."""
    return f"{NAME_PREFIX}{label}-{uuid.uuid4().hex[:8]}", str(uuid.uuid4())


def guest(label: str, files: Path) -> DomainConfig:
    """Every device kind we model; libvirt checks none of the files until start."""
    name, uid = unique(label)
    return DomainConfig(
        name=name,
        uuid=uid,
        virt_type="qemu",
        memory_mib=96,
        vcpus=2,
        machine="pc",
        kernel=str(files / "vmlinux"),
        initrd=str(files / "initrd"),
        cmdline="console=ttyS0 saphira.say='a & <b>'",
        disks=(
            DiskConfig(str(files / "disk"), "vda"),
            DiskConfig(str(files / "disk.eph0"), "vdb", driver_type="raw"),
            DiskConfig(str(files / "disk.config"), "hdc", "raw", "ide", device="cdrom"),
        ),
        interfaces=(
            InterfaceConfig(
                "fa:16:3e:00:00:01", "bridge", source_bridge="brq0", target_dev="tapa1"
            ),
            InterfaceConfig(
                "fa:16:3e:00:00:02",
                "bridge",
                source_bridge="br-int",
                target_dev="tapb2",
                mtu=1450,
                virtualport="openvswitch",
                interface_id=str(uuid.uuid4()),
                checksum_offload=False,
            ),
            InterfaceConfig("fa:16:3e:00:00:03", "ethernet", target_dev="tapc3"),
        ),
        serial=SerialConsoleConfig(str(files / "console.log")),
        graphics=GraphicsConfig("127.0.0.1", keymap="en-us"),
        metadata=InstanceMetadata("vm & co", "proj", "user", "m1.nano", "img", "2026-11-29"),
        on_reboot="destroy",
    )


def test_a_defined_domain_reads_back_as_defined(define: Define, tmp_path: Path) -> None:
    config = guest("define", tmp_path)
    read = from_xml(define(config).XMLDesc())
    # libvirt pins the machine type to QEMU's versioned alias, and may write
    # its default CPU model (custom, qemu64) into a TCG domain.
    assert read.machine is not None and read.machine.startswith("pc-i440fx-")
    assert read.cpu_mode in (None, "custom")
    assert dataclasses.replace(read, machine="pc", cpu_mode=None) == config


def test_libvirts_expansion_is_a_fixed_point(define: Define, tmp_path: Path) -> None:
    """Redefining a domain from what libvirt returned changes nothing (the
    driver may rebuild from a read-back config)."""
    config = dataclasses.replace(
        guest("first", tmp_path),
        cpu_mode="host-passthrough",
        graphics=GraphicsConfig("127.0.0.1", port=5999),
    )
    first = from_xml(define(config).XMLDesc())
    assert dataclasses.replace(first, machine="pc") == config
    name, uid = unique("again")
    again = dataclasses.replace(first, name=name, uuid=uid)
    assert from_xml(define(again).XMLDesc()) == again


def test_a_running_guest_reports_its_vnc_port(define: Define, tmp_path: Path) -> None:
    """Boots nothing (no disk, no kernel: the BIOS just finds no boot device),
    which is enough for QEMU to run and libvirt to pick a VNC port."""
    name, uid = unique("vnc")
    log = tmp_path / "console.log"
    config = DomainConfig(
        name=name,
        uuid=uid,
        virt_type="qemu",
        memory_mib=64,
        vcpus=1,
        serial=SerialConsoleConfig(str(log)),
        graphics=GraphicsConfig("127.0.0.1"),
    )
    domain = define(config)
    domain.create()
    running = from_xml(domain.XMLDesc())
    assert running.graphics is not None
    assert isinstance(running.graphics.port, int) and running.graphics.port >= 5900
    assert running.graphics.listen == "127.0.0.1"
    assert running.serial == SerialConsoleConfig(str(log))
    domain.destroy()
    stopped = from_xml(domain.XMLDesc())
    assert stopped.graphics == GraphicsConfig("127.0.0.1")
