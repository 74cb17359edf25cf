"""The acceptance of real guests: `saphira up` on libvirt, driven by the `openstack` CLI.

Each step is proved twice: by the server's status, and by the guest's own
console log (it prints ``booted ... cpus=N`` at every boot and a marker when
its ACPI power button is pressed). Every action goes through the CLI; the
waits for its outcome poll through openstacksdk in this process (a CLI run
per poll cost about a CPU-second, which the TCG guests were short of).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import libvirt
import pytest

from saphira.devtools.leftovers import purge
from saphira.guest_image import BOOTED, POWER_OFF
from saphira.service.tiny_image import FLAVOR_SIZE
from saphira.virt.libvirt.paths import InstanceFiles
from tests.functional.clients import sdk
from tests.functional.cloud import Cloud, start_cloud
from tests.integration.libvirt.guests import qemu_gone, qemu_reachable_dir

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("libvirt")]
TIMEOUT = 180.0
TINY_RAM_KB = FLAVOR_SIZE["memory_mb"] * 1024  # the guest sees less than its flavor's RAM


@pytest.fixture(scope="module")
def instances() -> Iterator[Path]:
    """instances_path outside pytest's 0700 tree: QEMU runs as its own user."""
    with qemu_reachable_dir("e2e") as root:
        yield root / "instances"


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory, instances: Path) -> Iterator[Cloud]:
    conf = tmp_path_factory.mktemp("conf") / "libvirt.conf"
    conf.write_text(
        f"[DEFAULT]\ninstances_path = {instances}\nsync_power_state_interval = 5\n"
        "shutdown_timeout = 30\n"
    )
    running = start_cloud(
        str(tmp_path_factory.mktemp("cloud")),
        ["--compute-driver", "libvirt.LibvirtDriver", "--test-image", "--config-file", str(conf)],
    )
    try:
        yield running
        if running.proc is not None and running.proc.poll() is None:
            assert running.stop() == 0, running.log()
    finally:
        running.kill()
        purge(running.state_dir)


_CONNECTIONS: dict[Path, Any] = {}


def connection(cloud: Cloud) -> Any:
    """The cloud's admin openstacksdk connection, made once."""
    if cloud.clouds_yaml not in _CONNECTIONS:
        _CONNECTIONS[cloud.clouds_yaml] = sdk(cloud.clouds_yaml, "admin")
    return _CONNECTIONS[cloud.clouds_yaml]


def show(cloud: Cloud, server: str) -> dict[str, Any]:
    shown: dict[str, Any] = cloud.openstack("server", "show", server, "-f", "json")
    return shown


def wait_status(cloud: Cloud, server: str, status: str) -> None:
    conn = connection(cloud)
    found = conn.compute.find_server(server, ignore_missing=False)
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        found = conn.compute.get_server(found.id)
        if found.status == status and not found.task_state:
            return
        assert found.status != "ERROR", found
        time.sleep(1)
    raise AssertionError(f"{server} never reached {status}: {found}")


def console(cloud: Cloud, server: str, *extra: str) -> str:
    return str(cloud.openstack("console", "log", "show", *extra, server))


def wait_console(cloud: Cloud, server: str, text: str, count: int) -> str:
    conn = connection(cloud)
    found = conn.compute.find_server(server, ignore_missing=False)
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        log = str(conn.compute.get_server_console_output(found.id)["output"])
        if log.count(text) >= count:
            return log
        time.sleep(1)
    raise AssertionError(f"{text!r} not {count}x on {server}'s console:\n{log[-3000:]}")


def guest_memory_kb(console_log: str) -> int:
    """The memory the guest's last boot saw, from its ``booted … mem_kb=N`` line."""
    found = re.search(r"mem_kb=(\d+)", console_log.split(BOOTED)[-1])
    assert found, console_log[-2000:]
    return int(found.group(1))


def act(cloud: Cloud, server: str, *action: str, status: str = "ACTIVE") -> None:
    cloud.openstack("server", *action, server)
    wait_status(cloud, server, status)


def test_a_real_guest_goes_through_every_action(cloud: Cloud, instances: Path) -> None:
    cloud.openstack(
        "server", "create", "--image", "saphira-tiny", "--flavor", "saphira.tiny",
        "--no-network", "--wait", "g1",
    )  # fmt: skip
    shown = show(cloud, "g1")
    assert shown["status"] == "ACTIVE"
    kernel = cloud.openstack("image", "show", "saphira-tiny-kernel", "-f", "json")["id"]
    assert shown["OS-EXT-SRV-ATTR:kernel_id"] == kernel  # booted directly, not by SYSLINUX
    wait_console(cloud, "g1", BOOTED, 1)
    assert len(console(cloud, "g1", "--lines", "2").splitlines()) <= 2

    act(cloud, "g1", "stop", status="SHUTOFF")
    assert POWER_OFF in console(cloud, "g1")
    act(cloud, "g1", "start")
    wait_console(cloud, "g1", BOOTED, 2)
    act(cloud, "g1", "reboot", "--soft")
    log = wait_console(cloud, "g1", BOOTED, 3)
    assert log.count(POWER_OFF) == 2
    act(cloud, "g1", "reboot", "--hard")
    assert wait_console(cloud, "g1", BOOTED, 4).count(POWER_OFF) == 2  # never asks the guest
    act(cloud, "g1", "rebuild", "--image", "saphira-tiny")
    wait_console(cloud, "g1", BOOTED, 5)
    act(cloud, "g1", "pause", status="PAUSED")
    act(cloud, "g1", "unpause")
    act(cloud, "g1", "suspend", status="SUSPENDED")
    act(cloud, "g1", "resume")
    assert console(cloud, "g1").count(BOOTED) == 5  # resumed, not rebooted

    cloud.openstack("server", "image", "create", "--name", "g1-snap", "--wait", "g1")
    snap = cloud.openstack("image", "show", "g1-snap", "-f", "json")
    assert snap["status"] == "active" and snap["disk_format"] == "qcow2", snap
    assert snap["properties"]["kernel_id"] == kernel  # its servers boot the same way
    cloud.openstack("image", "delete", "g1-snap")

    # One vCPU: a two-vCPU TCG guest on a loaded two-core host can stall at boot (RCU, no
    # timer ticks on CPU 0), so the new flavor shows in the guest by its memory alone.
    cloud.openstack("flavor", "create", "--vcpus", "1", "--ram", "192", "--disk", "2",
                    "--ephemeral", "1", "saphira.two")  # fmt: skip
    files = InstanceFiles.of(instances, show(cloud, "g1")["id"])
    act(cloud, "g1", "resize", "--flavor", "saphira.two", status="VERIFY_RESIZE")
    assert guest_memory_kb(wait_console(cloud, "g1", BOOTED, 6)) > TINY_RAM_KB
    assert files.ephemeral.exists() and files.resize_backup.directory.exists()
    act(cloud, "g1", "resize", "revert")
    assert guest_memory_kb(wait_console(cloud, "g1", BOOTED, 7)) <= TINY_RAM_KB
    assert not files.ephemeral.exists() and not files.resize_backup.directory.exists()
    act(cloud, "g1", "resize", "--flavor", "saphira.two", status="VERIFY_RESIZE")
    wait_console(cloud, "g1", BOOTED, 8)
    act(cloud, "g1", "resize", "confirm")
    assert files.ephemeral.exists() and not files.resize_backup.directory.exists()
    two = cloud.openstack("flavor", "show", "saphira.two", "-f", "json")
    flavor = show(cloud, "g1")["flavor"]
    assert two["id"] == flavor.get("id") or flavor.get("original_name") == "saphira.two", flavor

    uuid = show(cloud, "g1")["id"]
    cloud.openstack("server", "delete", "--wait", "g1")
    assert_nothing_left(instances, [uuid])


def test_five_at_once_then_a_guest_killed_from_outside(cloud: Cloud, instances: Path) -> None:
    cloud.openstack(
        "server", "create", "--image", "saphira-tiny", "--flavor", "saphira.tiny",
        "--no-network", "--min", "5", "--max", "5", "--wait", "five",
    )  # fmt: skip
    servers = cloud.openstack("server", "list", "--name", "^five", "-f", "json")
    assert sorted(s["Status"] for s in servers) == ["ACTIVE"] * 5, servers
    uuids = [s["ID"] for s in servers]
    victim = uuids[0]
    conn = libvirt.open("qemu:///system")
    try:
        conn.lookupByUUIDString(victim).destroy()  # what `virsh destroy` does
    finally:
        conn.close()
    wait_status(cloud, victim, "SHUTOFF")
    for uuid in uuids:
        cloud.openstack("server", "delete", uuid)
    conn = connection(cloud)
    for uuid in uuids:
        deadline = time.monotonic() + TIMEOUT
        while conn.compute.find_server(uuid, ignore_missing=True) is not None:
            assert time.monotonic() < deadline, f"{uuid} never went away"
            time.sleep(1)
    assert_nothing_left(instances, uuids)


def assert_nothing_left(instances: Path, uuids: list[str]) -> None:
    """No domain, QEMU process, overlay or console log of these servers remains."""
    conn = libvirt.open("qemu:///system")
    try:
        domains = {dom.UUIDString() for dom in conn.listAllDomains(0)}
    finally:
        conn.close()
    for uuid in uuids:
        assert uuid not in domains
        assert qemu_gone(uuid) == []
        assert not (instances / uuid).exists()
        assert not (instances / f"{uuid}_resize").exists()
