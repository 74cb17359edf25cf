"""libvirtd killed and started again: the driver reports it and carries on.

Runs in the libvirt xdist group, so no other test talks to libvirtd while it
is down. The daemon was started by the test command (our own process).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from saphira.domain.states import PowerState
from saphira.guest_image import GuestImage
from saphira.virt.libvirt import daemons
from saphira.virt.libvirt.domain import GuestSettings
from saphira.virt.libvirt.driver import LibvirtDriver, Settings
from tests.integration.libvirt import guests
from tests.integration.libvirt.guests import qemu_pids

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("libvirt")]
PIDFILES = (Path("/run/libvirtd.pid"), Path("/run/virtqemud.pid"))


def _daemon_pid() -> int:
    for pidfile in PIDFILES:
        if pidfile.exists():
            return int(pidfile.read_text().strip())
    raise AssertionError("no libvirt daemon pidfile: the test command starts one")


def _wait_gone(pid: int, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not Path(f"/proc/{pid}").exists(), f"libvirt daemon {pid} did not stop"


@pytest.fixture
def driver(tiny_image: GuestImage) -> Iterator[LibvirtDriver]:
    with guests.qemu_reachable_dir("reconnect") as root:
        settings = Settings(
            instances_path=root / "instances", guest=GuestSettings("qemu", None),
            shutdown_timeout=5,
        )  # fmt: skip
        source = guests.FileSource.tiny(tiny_image)
        drv = LibvirtDriver("test-host", "test-host", settings, source)
        drv.init_host()
        yield drv
        drv.cleanup_host()


def test_libvirtd_restart_is_survived(driver: LibvirtDriver) -> None:
    server = guests.instance()
    driver.spawn(server, guests.meta(), ())
    try:
        guests.boots(driver, server, 1)
        qemu = qemu_pids(server.uuid)
        pid = _daemon_pid()
        os.kill(pid, signal.SIGTERM)
        _wait_gone(pid)
        assert driver.healthy() is False
        daemons.ensure_running()
        assert driver.healthy() is True
        assert qemu_pids(server.uuid) == qemu  # the guest never noticed
        assert driver.get_info(server).state is PowerState.RUNNING
        driver.power_off(server, timeout=0)
        assert driver.get_info(server).state is PowerState.SHUTDOWN
    finally:
        daemons.ensure_running()
        driver.destroy(server, ())
