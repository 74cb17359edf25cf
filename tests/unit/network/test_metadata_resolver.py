"""(network, address) -> instance: the network service's answer, and its short cache."""

from __future__ import annotations

from typing import Any

from saphira.clients.network import Filter
from saphira.network.metadata.resolver import (
    CachedResolver,
    InstancePort,
    NetworkServicePorts,
    instance_port,
    mac_of_link_local,
)


def port(device_id: str, owner: str = "compute:nova", project: str = "p1") -> dict[str, Any]:
    return {"device_id": device_id, "device_owner": owner, "project_id": project}


class FakePorts:
    def __init__(self, ports: list[dict[str, Any]]) -> None:
        self.ports = ports
        self.asked: list[dict[str, Filter]] = []

    def list_ports(self, **filters: Filter) -> list[dict[str, Any]]:
        self.asked.append(filters)
        return self.ports


class CountingResolver:
    def __init__(self, answer: InstancePort | None) -> None:
        self.answer, self.calls = answer, 0

    def resolve(self, network_id: str, address: str) -> InstancePort | None:
        self.calls += 1
        return self.answer


def test_the_port_is_looked_up_by_network_and_fixed_ip() -> None:
    ports = FakePorts([port("vm-1")])
    found = NetworkServicePorts(ports).resolve("net-a", "10.0.0.5")
    assert found == InstancePort("vm-1", "p1")
    assert ports.asked == [{"network_id": "net-a", "fixed_ips": "ip_address=10.0.0.5"}]


def test_a_link_local_address_is_looked_up_by_the_mac_it_carries() -> None:
    ports = FakePorts([port("vm-1")])
    NetworkServicePorts(ports).resolve("net-a", "fe80::f816:3eff:fe12:3456%eth0")
    assert ports.asked == [{"network_id": "net-a", "mac_address": "fa:16:3e:12:34:56"}]
    assert mac_of_link_local("fe80::1") is None
    assert mac_of_link_local("2001:db8::f816:3eff:fe12:3456") is None
    assert mac_of_link_local("10.0.0.5") is None


def test_no_port_or_no_instance_port_or_two_ports_is_no_instance() -> None:
    assert instance_port([]) is None
    assert instance_port([port("dhcp-host1", owner="network:dhcp")]) is None
    assert instance_port([port("", owner="compute:nova")]) is None
    assert instance_port([port("vm-1"), port("vm-2")]) is None
    assert instance_port([port("vm-1", owner="compute:az1")]) == InstancePort("vm-1", "p1")


def test_an_instance_found_is_reused_for_a_few_seconds_only() -> None:
    now = [100.0]
    inner = CountingResolver(InstancePort("vm-1", "p1"))
    cached = CachedResolver(inner, 5.0, clock=lambda: now[0])
    for _ in range(3):
        assert cached.resolve("net-a", "10.0.0.5") == InstancePort("vm-1", "p1")
    assert inner.calls == 1
    cached.resolve("net-b", "10.0.0.5")
    assert inner.calls == 2
    now[0] += 5.1
    cached.resolve("net-a", "10.0.0.5")
    assert inner.calls == 3


def test_an_address_without_a_port_is_asked_again_each_time() -> None:
    inner = CountingResolver(None)
    cached = CachedResolver(inner, 5.0)
    assert cached.resolve("net-a", "10.0.0.9") is None
    assert cached.resolve("net-a", "10.0.0.9") is None
    assert inner.calls == 2
