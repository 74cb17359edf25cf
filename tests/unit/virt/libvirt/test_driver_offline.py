"""LibvirtDriver parts that need no libvirt daemon: image-cache clean-up and NICs."""

from __future__ import annotations

from pathlib import Path

import pytest

from saphira.exception import ConsoleTypeUnavailable
from saphira.objects import ConsoleType, Flavor, Instance
from saphira.virt.errors import VirtError
from saphira.virt.libvirt import disks
from saphira.virt.libvirt.domain import GuestSettings
from saphira.virt.libvirt.driver import LibvirtDriver, Settings
from saphira.virt.libvirt.vif import interface, tap_name
from saphira.virt.types import VIF
from tests.unit.virt.libvirt.fake_images import FakeImages, qcow2


def _driver(tmp_path: Path, images: FakeImages) -> LibvirtDriver:
    settings = Settings(
        instances_path=tmp_path / "instances", guest=GuestSettings("qemu", None),
        unused_base_min_age=0,
    )  # fmt: skip
    return LibvirtDriver("h", "h", settings, images)


def test_cache_cleanup_keeps_the_bases_overlays_use(tmp_path: Path) -> None:
    images = FakeImages()
    for image_id in ("used", "resized", "unused"):
        images.add(image_id, qcow2(tmp_path / f"{image_id}.qcow2").read_bytes(), "qcow2")
    driver = _driver(tmp_path, images)
    bases = {image_id: driver.cache.fetch(image_id) for image_id in ("used", "resized", "unused")}
    for directory, image_id in (("uuid-1", "used"), ("uuid-2_resize", "resized")):
        (tmp_path / "instances" / directory).mkdir(parents=True)
        overlay = tmp_path / "instances" / directory / "disk"
        disks.create_overlay(bases[image_id].path, "qcow2", overlay, 0)

    driver.manage_image_cache()

    assert bases["used"].path.exists() and bases["resized"].path.exists()
    assert not bases["unused"].path.exists()


def test_nics_for_each_vif_type() -> None:
    port = "0123456789abcdef"
    ovs = interface(VIF(port, "fa:16:3e:00:00:01", vif_type="ovs", bridge="br-int"), "h")
    assert (ovs.kind, ovs.virtualport, ovs.interface_id) == ("bridge", "openvswitch", port)
    assert ovs.checksum_offload is False  # the userspace datapath corrupts offloaded sums
    bridge = interface(VIF(port, "fa:16:3e:00:00:02", bridge="brq1", mtu=1450), "h")
    assert (bridge.kind, bridge.source_bridge, bridge.mtu) == ("bridge", "brq1", 1450)
    tap = interface(VIF(port, "fa:16:3e:00:00:03", vif_type="tap"), "h")
    assert tap.kind == "ethernet" and tap.target_dev == tap_name(VIF(port, "x")) == "tap0123456789a"
    with pytest.raises(VirtError, match="unsupported vif_type 'vhostuser'"):
        interface(VIF(port, "fa:16:3e:00:00:04", vif_type="vhostuser"), "h")


def test_without_vnc_graphics_a_novnc_console_is_unavailable(tmp_path: Path) -> None:
    driver = _driver(tmp_path, FakeImages())  # GuestSettings(..., None): [vnc] enabled off
    guest = Instance("u-1", "p1", "u1", Flavor("1", "tiny", 1, 64, 1), host="h", node="h")
    for kind in ConsoleType:  # [spice] and [serial_console] are off by default too
        with pytest.raises(ConsoleTypeUnavailable):
            driver.get_console(guest, kind)
