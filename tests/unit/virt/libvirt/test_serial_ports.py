"""Serial console ports: from [serial_console] port_range, never one a domain on
this libvirtd holds, one being defined, or one something else listens on."""

from __future__ import annotations

import socket
import threading

import pytest

from saphira.exception import ConfigError
from saphira.virt.errors import VirtError
from saphira.virt.libvirt.serial_ports import SerialPorts, can_bind, parse_range


def test_the_range_is_first_to_last_inclusive() -> None:
    assert parse_range("10000:20000") == range(10000, 20001)
    assert parse_range("7:7") == range(7, 8)
    for bad in ("20000:10000", "0:5", "1:65536", "a:b", "10000"):
        with pytest.raises(ConfigError):
            parse_range(bad)


def test_ports_domains_hold_and_ports_being_defined_are_skipped() -> None:
    domains = {10000, 10002}
    ports = SerialPorts("127.0.0.1", range(10000, 10005), lambda: set(domains),
                        free=lambda _host, _port: True)  # fmt: skip
    with ports.reserve() as first, ports.reserve() as second:
        assert (first, second) == (10001, 10003)
    domains.add(10001)  # the first guest is defined: its XML holds the port now
    with ports.reserve() as third:
        assert third == 10003  # the second guest's reservation ended without a domain
    domains.clear()
    with ports.reserve() as again:
        assert again == 10000  # an undefined domain's port is free again


def test_a_port_something_listens_on_is_skipped_and_an_empty_range_is_an_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        assert not can_bind("127.0.0.1", busy)
        only = SerialPorts("127.0.0.1", range(busy, busy + 1), set)
        with pytest.raises(VirtError, match="no free serial port"), only.reserve():
            pass
    with only.reserve() as port:
        assert port == busy


def test_concurrent_spawns_get_distinct_ports() -> None:
    ports = SerialPorts("127.0.0.1", range(10000, 10020), set, free=lambda _h, _p: True)
    got: list[int] = []
    release = threading.Event()

    def spawn() -> None:
        with ports.reserve() as port:
            got.append(port)
            release.wait(10)

    threads = [threading.Thread(target=spawn) for _ in range(8)]
    for thread in threads:
        thread.start()
    for _ in range(3000):  # a hang guard, not a timing check
        if len(got) == 8:
            break
        threading.Event().wait(0.01)
    release.set()
    for thread in threads:
        thread.join(10)
    assert sorted(got) == list(range(10000, 10008))
