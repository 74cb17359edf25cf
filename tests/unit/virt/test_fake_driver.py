"""The fake driver as a product: lifecycle, resources, consoles, resize,
events, fault injection and many hypervisors in one process."""

from __future__ import annotations

import socket
import struct
from collections.abc import Callable
from pathlib import Path

import pytest

from saphira import conf as saphira_conf
from saphira.domain.states import PowerState
from saphira.exception import ConfigError, ConsoleTypeUnavailable
from saphira.objects import ConsoleType, Flavor, Instance
from saphira.virt import loader
from saphira.virt.errors import GuestNotFound, InjectedFault, VirtError
from saphira.virt.fake import FakeDriver, FaultInjector
from saphira.virt.types import (
    VIF,
    ImageData,
    ImageMeta,
    LifecycleEvent,
    LifecycleTransition,
    Migration,
    RebootType,
)

TINY = Flavor("1", "m1.tiny", 1, 512, 1)
SMALL = Flavor("2", "m1.small", 2, 2048, 20)
IMAGE = ImageMeta("img-1", "tiny")
NICS = (VIF("port-1", "fa:16:3e:00:00:01"),)


def _instance(uuid: str = "u-1", name: str = "vm") -> Instance:
    return Instance(uuid, "p", "u", TINY, display_name=name, id=1)


def _power(driver: FakeDriver, inst: Instance) -> PowerState:
    return driver.get_info(inst).state


def test_lifecycle_walks_power_states_and_emits_events() -> None:
    driver = FakeDriver("h1", "h1")
    events: list[LifecycleEvent] = []
    driver.register_event_listener(events.append)
    driver.init_host()
    inst = _instance()
    driver.spawn(inst, IMAGE, NICS)
    assert driver.list_instances() == ["u-1"] and _power(driver, inst) is PowerState.RUNNING
    steps: list[tuple[Callable[[], None], PowerState]] = [
        (lambda: driver.power_off(inst, timeout=5), PowerState.SHUTDOWN),
        (lambda: driver.power_on(inst, NICS), PowerState.RUNNING),
        (lambda: driver.pause(inst), PowerState.PAUSED),
        (lambda: driver.unpause(inst), PowerState.RUNNING),
        (lambda: driver.suspend(inst), PowerState.SUSPENDED),
        (lambda: driver.resume(inst, NICS), PowerState.RUNNING),
        (lambda: driver.reboot(inst, NICS, RebootType.HARD), PowerState.RUNNING),
    ]
    for call, power in steps:
        call()
        assert _power(driver, inst) is power
    names = [e.transition.value for e in events]
    assert names == [
        "started", "stopped", "started", "paused", "resumed", "suspended", "resumed", "started",
    ]  # fmt: skip
    assert all(isinstance(e.transition, LifecycleTransition) for e in events)
    driver.destroy(inst, NICS)
    driver.destroy(inst, NICS)  # idempotent
    assert driver.list_instances() == []
    with pytest.raises(GuestNotFound):
        driver.get_info(inst)


def test_resources_count_guests_and_spawning_twice_fails() -> None:
    driver = FakeDriver("h1", "n1", resources=(4, 4096, 50))
    driver.spawn(_instance("a"), IMAGE, ())
    driver.spawn(Instance("b", "p", "u", SMALL), IMAGE, ())
    res = driver.get_available_resource()
    assert (res.hypervisor_hostname, res.vcpus, res.memory_mb, res.local_gb) == ("n1", 4, 4096, 50)
    assert (res.vcpus_used, res.memory_mb_used, res.local_gb_used) == (3, 2560, 21)
    with pytest.raises(VirtError, match="already exists"):
        driver.spawn(_instance("a"), IMAGE, ())


def test_console_rebuild_and_snapshot() -> None:
    driver = FakeDriver("h1", "h1", console_lines=4)
    inst = _instance()
    driver.spawn(inst, IMAGE, ())
    assert driver.get_console_output(inst).splitlines()[-1] == f"{inst.name} login:"
    driver.rebuild(inst, ImageMeta("img-2"), ())
    log = driver.get_console_output(inst).splitlines()
    assert len(log) == 4 and "image img-2" in log[1]
    uploads: list[ImageData] = []
    driver.snapshot(inst, "snap-1", uploads.append)
    assert b"".join(uploads[0].chunks).startswith(b"fake disk of u-1 from img-2")
    assert driver.get_console(inst, ConsoleType.NOVNC).host == "127.0.0.1"
    driver.destroy(inst, ())


ALL_CONSOLES = frozenset(ConsoleType)


def test_a_fake_guests_serial_port_prints_the_marker_and_a_prompt_until_destroyed() -> None:
    driver = FakeDriver("h1", "h1", consoles=ALL_CONSOLES)
    inst = _instance()
    driver.spawn(inst, IMAGE, ())
    endpoint = driver.get_console(inst, ConsoleType.SERIAL)
    assert driver.get_console(inst, ConsoleType.SERIAL) == endpoint  # one port per guest
    with socket.create_connection((endpoint.host, endpoint.port), timeout=10) as tty:
        seen = _read_until(tty, b"login: ")
        assert seen.startswith(b"SAPHIRA-GUEST: serial console of " + inst.name.encode())
        tty.sendall(b"root\r")
        assert _read_until(tty, b"login: ") == f"root\r\n{inst.name} login: ".encode()
    driver.destroy(inst, ())
    with pytest.raises(OSError):
        socket.create_connection((endpoint.host, endpoint.port), timeout=10).close()


def test_cleanup_host_stops_every_guests_console_listeners() -> None:
    driver = FakeDriver("h1", "h1", consoles=ALL_CONSOLES)
    inst = _instance()
    driver.spawn(inst, IMAGE, ())
    endpoints = [driver.get_console(inst, kind) for kind in ConsoleType]
    driver.cleanup_host()
    for endpoint in endpoints:
        with pytest.raises(OSError):
            socket.create_connection((endpoint.host, endpoint.port), timeout=10).close()


def test_a_fake_guests_spice_server_answers_the_link_message() -> None:
    driver = FakeDriver("h1", "h1", consoles=ALL_CONSOLES)
    inst = _instance()
    driver.spawn(inst, IMAGE, ())
    endpoint = driver.get_console(inst, ConsoleType.SPICE_HTML5)
    link = struct.pack("<IBBIII", 0, 1, 0, 0, 0, 18)
    with socket.create_connection((endpoint.host, endpoint.port), timeout=10) as spice:
        spice.sendall(b"REDQ" + struct.pack("<III", 2, 2, len(link)) + link)
        head = _read_exactly(spice, 16)
        assert head[:4] == b"REDQ" and struct.unpack("<III", head[4:]) == (2, 2, 178)
        assert struct.unpack("<I", _read_exactly(spice, 4)) == (0,)  # SPICE_LINK_ERR_OK
    driver.destroy(inst, ())
    with pytest.raises(OSError):
        socket.create_connection((endpoint.host, endpoint.port), timeout=10).close()


def test_spice_and_serial_follow_their_options_as_with_libvirt() -> None:
    conf = saphira_conf.load([])
    (off,) = FakeDriver.from_conf(conf)
    inst = _instance()
    off.spawn(inst, IMAGE, ())
    for kind in (ConsoleType.SPICE_HTML5, ConsoleType.SERIAL):
        with pytest.raises(ConsoleTypeUnavailable):
            off.get_console(inst, kind)
    off.destroy(inst, ())
    conf.set_override("enabled", True, group="serial_console")
    (on,) = FakeDriver.from_conf(conf)
    assert on.consoles == {ConsoleType.NOVNC, ConsoleType.SERIAL}


def _read_exactly(sock: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        assert chunk, data
        data += chunk
    return data


def _read_until(tty: socket.socket, end: bytes) -> bytes:
    seen = b""
    while not seen.endswith(end):
        chunk = tty.recv(4096)
        assert chunk, seen
        seen += chunk
    return seen


def test_resize_between_hosts_then_confirm_or_revert() -> None:
    src, dst = FakeDriver.fleet(["src", "dst"]).values()
    inst = _instance()
    move = Migration("m-1", "src", "src", "dst", "dst", TINY, SMALL)
    src.spawn(inst, IMAGE, ())
    src.migrate_disk_and_power_off(inst, move, SMALL)
    assert _power(src, inst) is PowerState.SHUTDOWN
    dst.finish_migration(inst, move, IMAGE, (), power_on=True)
    assert dst.get_available_resource().vcpus_used == 2
    dst.destroy(inst, ())  # revert: drop the new guest, restart the old one
    src.finish_revert_migration(inst, move, (), power_on=True)
    assert _power(src, inst) is PowerState.RUNNING
    assert src.get_available_resource().vcpus_used == 1
    src.migrate_disk_and_power_off(inst, move, SMALL)
    dst.finish_migration(inst, move, IMAGE, (), power_on=False)
    src.confirm_migration(inst, move)
    assert (src.list_instances(), dst.list_instances()) == ([], ["u-1"])
    assert _power(dst, inst) is PowerState.SHUTDOWN


def test_faults_by_host_instance_and_count() -> None:
    faults = FaultInjector()
    fleet = FakeDriver.fleet([f"h{i}" for i in range(100)], faults=faults)
    faults.fail("spawn", hosts=["h3"])
    faults.fail("power_off", instances=["doomed"], times=2, reason="disk on fire")
    with pytest.raises(InjectedFault, match="spawn of vm on h3"):
        fleet["h3"].spawn(_instance(), IMAGE, ())
    assert fleet["h3"].list_instances() == []
    fleet["h4"].spawn(_instance(), IMAGE, ())
    doomed = _instance("u-2", "doomed")
    fleet["h4"].spawn(doomed, IMAGE, ())
    for _ in range(2):
        with pytest.raises(InjectedFault, match="disk on fire"):
            fleet["h4"].power_off(doomed)
    fleet["h4"].power_off(doomed)  # the third call works
    assert faults.injected == [("spawn", "h3", "u-1"), *[("power_off", "h4", "u-2")] * 2]
    faults.clear()
    fleet["h3"].spawn(_instance(), IMAGE, ())
    with pytest.raises(ValueError):
        faults.fail("fly")


def test_delay_goes_through_the_injected_sleep() -> None:
    slept: list[float] = []
    driver = FakeDriver("h1", "h1", delay=0.25, sleep=slept.append)
    driver.spawn(_instance(), IMAGE, ())
    assert slept == [0.25]


def test_loader_builds_nodes_and_faults_from_conf(tmp_path: Path) -> None:
    conf = saphira_conf.load(
        overrides={
            "DEFAULT": {
                "host": "cmp1",
                "state_path": str(tmp_path),
                "compute_driver": "fake.FakeDriver",
            },
            "fake_driver": {
                "nodes": ["cmp1-a", "cmp1-b"],
                "vcpus": 2,
                "fail_spawn_hosts": ["cmp1"],
            },
        }
    )
    drivers = loader.load_drivers(conf)
    assert [(d.host, d.node) for d in drivers] == [("cmp1", "cmp1-a"), ("cmp1", "cmp1-b")]
    assert drivers[0].get_available_resource().vcpus == 2
    with pytest.raises(InjectedFault, match="configuration"):
        drivers[1].spawn(_instance(), IMAGE, ())


def test_loader_names_what_is_wrong() -> None:
    assert loader.driver_class("fake.FakeDriver") is FakeDriver
    with pytest.raises(ConfigError, match=r"unknown driver 'vmware\.VMwareVCDriver'"):
        loader.driver_class("vmware.VMwareVCDriver")
    assert loader.driver_class("libvirt.LibvirtDriver").__name__ == "LibvirtDriver"


def test_nics_are_attached_and_detached_once_each() -> None:
    driver = FakeDriver("h1", "h1")
    inst = _instance()
    driver.spawn(inst, IMAGE, NICS)
    extra = VIF("port-2", "fa:16:3e:00:00:02")
    driver.attach_interface(inst, extra)
    assert driver.guests[inst.uuid].vifs == ["port-1", "port-2"]
    with pytest.raises(VirtError, match="already has port port-2"):
        driver.attach_interface(inst, extra)
    driver.detach_interface(inst, NICS[0])
    with pytest.raises(VirtError, match="has no NIC of port port-1"):
        driver.detach_interface(inst, NICS[0])
    assert driver.guests[inst.uuid].vifs == ["port-2"]
    driver.faults.fail("detach_interface", times=1)
    with pytest.raises(InjectedFault):
        driver.detach_interface(inst, extra)
    with pytest.raises(GuestNotFound):
        driver.attach_interface(_instance("u-2"), extra)
