"""A boot storm's look-ups on one network go out as few port lists, each answer to its asker."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from saphira.clients.network import Filter
from saphira.network.metadata.batching import BatchingPorts
from saphira.network.metadata.resolver import InstancePort, NetworkServicePorts


def port(device_id: str, *ips: str) -> dict[str, Any]:
    return {
        "device_id": device_id,
        "device_owner": "compute:nova",
        "project_id": "p1",
        "fixed_ips": [{"ip_address": ip} for ip in ips],
    }


class SlowPorts:
    """The network API: its first list waits until ``release`` is set, like a busy service."""

    def __init__(self, ports: list[dict[str, Any]]) -> None:
        self.ports = ports
        self.asked: list[dict[str, Filter]] = []
        self.release = threading.Event()
        self.fail = False

    def list_ports(self, **filters: Filter) -> list[dict[str, Any]]:
        self.asked.append(filters)
        self.release.wait(10)
        if self.fail:
            raise OSError("network API unreachable")
        asked = filters.get("fixed_ips", [])
        wanted = {f.partition("=")[2] for f in (asked if isinstance(asked, list) else [])}
        return [p for p in self.ports if {f["ip_address"] for f in p["fixed_ips"]} & wanted]


def test_lookups_that_arrive_while_one_is_out_go_as_one_batch() -> None:
    api = SlowPorts([port(f"vm-{n}", f"10.0.0.{n}") for n in range(1, 41)])
    batching = BatchingPorts(NetworkServicePorts(api))
    with ThreadPoolExecutor(40) as pool:
        first = pool.submit(batching.resolve, "net-a", "10.0.0.1")
        while not api.asked:
            threading.Event().wait(0.01)
        rest = [pool.submit(batching.resolve, "net-a", f"10.0.0.{n}") for n in range(2, 41)]
        threading.Event().wait(0.2)  # the 39 join the next batch meanwhile
        api.release.set()
        answers = [first.result(), *(future.result() for future in rest)]
    assert answers == [InstancePort(f"vm-{n}", "p1") for n in range(1, 41)]
    assert len(api.asked) == 2
    assert api.asked[0] == {"network_id": "net-a", "fixed_ips": ["ip_address=10.0.0.1"]}
    second = api.asked[1]["fixed_ips"]
    assert isinstance(second, list)
    assert sorted(second) == sorted(f"ip_address=10.0.0.{n}" for n in range(2, 41))


def test_an_address_nobody_holds_and_a_shared_address_find_nothing() -> None:
    api = SlowPorts([port("vm-1", "10.0.0.1"), port("vm-2", "10.0.0.2"), port("vm-3", "10.0.0.2")])
    api.release.set()
    batching = BatchingPorts(NetworkServicePorts(api))
    assert batching.resolve("net-a", "10.0.0.9") is None
    assert batching.resolve("net-a", "10.0.0.2") is None
    assert batching.resolve("net-a", "10.0.0.1") == InstancePort("vm-1", "p1")


def test_a_failed_list_reaches_every_asker_of_its_batch() -> None:
    api = SlowPorts([])
    api.fail = True
    api.release.set()
    with pytest.raises(OSError):
        BatchingPorts(NetworkServicePorts(api)).resolve("net-a", "10.0.0.1")


def test_a_link_local_address_is_looked_up_alone_by_mac() -> None:
    api = SlowPorts([])
    api.release.set()
    BatchingPorts(NetworkServicePorts(api)).resolve("net-a", "fe80::f816:3eff:fe12:3456")
    assert api.asked == [{"network_id": "net-a", "mac_address": "fa:16:3e:12:34:56"}]
