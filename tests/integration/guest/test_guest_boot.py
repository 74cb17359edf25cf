"""The tiny guest really boots under QEMU (TCG) and does what tests will rely on."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import requests

from saphira.guest_image import (
    BOOTED,
    HTTP_BODY,
    HTTP_PORT,
    POWER_OFF,
    PROBE_PATH,
    READY,
    GuestImage,
)
from tests.integration.guest import metadata_server
from tests.integration.guest.qemu import Guest, direct_boot_args, user_nic
from tests.sockets import free_port

pytestmark = pytest.mark.integration
MD_ADDR = "10.0.2.100"  # inside QEMU's slirp network: served by guestfwd, never routed out


def test_direct_boot_dhcp_metadata_and_http(tiny_image: GuestImage, workdir: Path) -> None:
    port = free_port()
    server = f"{sys.executable} {metadata_server.__file__}"
    nic = user_nic(f"guestfwd=tcp:{MD_ADDR}:80-cmd:{server}", f"hostfwd=tcp:127.0.0.1:{port}-:80")
    cmdline = f"{tiny_image.cmdline} saphira.metadata=http://{MD_ADDR}"
    args = [*direct_boot_args(tiny_image.vmlinux, tiny_image.initramfs, cmdline), *nic]
    with Guest(workdir, args) as guest:
        out = guest.wait_for(READY)
        answer = requests.get(f"http://127.0.0.1:{port}/", timeout=10)
    assert out.index(BOOTED) < out.index(READY)
    assert "SAPHIRA-GUEST: mac eth0 52:54:00:" in out
    assert "SAPHIRA-GUEST: ip eth0 10.0.2.15/24" in out
    assert metadata_server.UUID in out
    assert "user-data-says-hello" in out
    assert f"SAPHIRA-GUEST: hostname {metadata_server.NAME}" in out
    assert "SAPHIRA-GUEST: ssh keys 1" in out
    assert HTTP_PORT == 80
    assert answer.text.strip() == f"{HTTP_BODY} {metadata_server.NAME}"


def test_probe_reaches_ports_and_changes_the_mac(tiny_image: GuestImage, workdir: Path) -> None:
    port = free_port()
    args = direct_boot_args(tiny_image.vmlinux, tiny_image.initramfs, tiny_image.cmdline)
    nic = user_nic(f"hostfwd=tcp:127.0.0.1:{port}-:80")
    with Guest(workdir, [*args, *nic]) as guest:
        guest.wait_for(READY)

        def probe(query: str) -> str:
            url = f"http://127.0.0.1:{port}{PROBE_PATH}?{query}"
            return requests.get(url, timeout=30).text

        assert probe("tcp=127.0.0.1,80").splitlines() == ["tcp ok"]
        assert probe("tcp=127.0.0.1,81").splitlines() == ["tcp failed"]
        moved = probe("spoofmac=02:00:5e:00:00:99,10.0.2.2")
        mac = guest.console().split("SAPHIRA-GUEST: mac eth0 ")[1].split()[0]
        assert f"mac was {mac} now 02:00:5e:00:00:99" in moved
        assert probe("tcp=127.0.0.1,80").splitlines() == ["tcp ok"], "the MAC was not put back"
        assert probe("nonsense=1").splitlines() == ["unknown probe nonsense"]


def test_direct_boot_without_a_nic_still_gets_ready(tiny_image: GuestImage, workdir: Path) -> None:
    args = direct_boot_args(tiny_image.vmlinux, tiny_image.initramfs, tiny_image.cmdline)
    with Guest(workdir, [*args, "-nic", "none"]) as guest:
        out = guest.wait_for(READY)
    assert "SAPHIRA-GUEST: no eth0" in out
    assert "meta_data.json unavailable" in out


def test_metadata_failure_is_reported_not_fatal(tiny_image: GuestImage, workdir: Path) -> None:
    args = direct_boot_args(tiny_image.vmlinux, tiny_image.initramfs, tiny_image.cmdline)
    with Guest(workdir, [*args, *user_nic()]) as guest:
        out = guest.wait_for(READY)
    assert "SAPHIRA-GUEST: ip eth0" in out
    assert "SAPHIRA-GUEST: meta_data.json unavailable" in out
    assert "SAPHIRA-GUEST: user_data unavailable" in out


def test_qcow2_disk_boots_on_its_own(tiny_image: GuestImage, workdir: Path) -> None:
    drive = f"file={tiny_image.qcow2},format=qcow2,if=virtio,snapshot=on"
    with Guest(workdir, ["-drive", drive, *user_nic()]) as guest:
        out = guest.wait_for(READY, timeout=150)
    assert BOOTED in out
    assert "SAPHIRA-GUEST: ip eth0 10.0.2.15/24" in out


def test_acpi_power_button_powers_the_guest_off(tiny_image: GuestImage, workdir: Path) -> None:
    args = direct_boot_args(tiny_image.vmlinux, tiny_image.initramfs, tiny_image.cmdline)
    with Guest(workdir, [*args, "-nic", "none"]) as guest:
        guest.wait_for(READY)
        guest.qmp("system_powerdown")
        assert guest.wait_exit(timeout=60) == 0
        assert POWER_OFF in guest.console()
