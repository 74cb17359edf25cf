"""The DHCP agent on a Linux bridge: real dnsmasq, real namespaces, busybox udhcpc as the guest."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from saphira.network.dhcp.agent import DhcpAgent, Wire
from saphira.network.dhcp.files import NetworkFiles
from saphira.objects.network import DhcpNetwork, DhcpSubnet, FixedIP
from tests.environment import require_tools

from .dhcp_host import (
    MTU,
    assert_nothing_left,
    dnsmasq_pid,
    guest,
    host,
    lease,
    linux_bridge,
    make_network,
    sh,
    solicit_v6,
    state_dir,
)

pytestmark = pytest.mark.integration


@dataclasses.dataclass
class Served:
    root: Path
    bridge: str
    network: DhcpNetwork

    def agent(self) -> DhcpAgent:
        """A new agent object each time: the same as an agent process restarting."""
        return DhcpAgent(self.root, lambda _: Wire(self.bridge), interface="linuxbridge")

    @property
    def files(self) -> NetworkFiles:
        return NetworkFiles.under(self.root / "dhcp", self.network.network_id)


@pytest.fixture
def served() -> Iterator[Served]:
    require_tools("dnsmasq", "busybox", "ip")
    with state_dir() as root, linux_bridge() as bridge:
        served = Served(root, bridge, make_network(host("10.77.0.10")))
        try:
            yield served
        finally:
            report = served.agent().sync([])
            network = served.network
            assert report.failed == {}
            assert_nothing_left(root, network.network_id, network.dhcp_port.port_id)


def test_a_guest_gets_exactly_its_port_with_the_metadata_route(
    served: Served, tmp_path: Path
) -> None:
    report = served.agent().sync([served.network])
    assert report.started == [served.network.network_id], report
    first = served.network.hosts[0]
    with guest(served.bridge, first.mac_address) as vm:
        got = lease(vm, tmp_path)
    assert got is not None
    assert (got["ip"], got["mask"], got["router"]) == ("10.77.0.10", "24", "10.77.0.1")
    assert got["dns"] == "10.77.0.53"
    assert got["mtu"] == str(MTU)
    assert got["staticroutes"] == "169.254.169.254/32 10.77.0.2 0.0.0.0/0 10.77.0.1"
    assert got["serverid"] == "10.77.0.2"


def test_a_mac_without_a_port_gets_nothing(served: Served, tmp_path: Path) -> None:
    served.agent().sync([served.network])
    with guest(served.bridge, "fa:16:3e:ee:ee:ee") as stranger:
        assert lease(stranger, tmp_path, tries=2) is None


def test_a_new_port_is_served_after_a_reload_not_a_restart(served: Served, tmp_path: Path) -> None:
    agent = served.agent()
    agent.sync([served.network])
    pid = dnsmasq_pid(served.root, served.network.network_id)
    second = host("10.77.0.11")
    served.network.hosts.append(second)
    report = agent.sync([served.network])
    assert report.reloaded == [served.network.network_id], report
    assert dnsmasq_pid(served.root, served.network.network_id) == pid
    with guest(served.bridge, second.mac_address) as vm:
        got = lease(vm, tmp_path)
    assert got is not None and got["ip"] == "10.77.0.11"
    assert agent.sync([served.network]).unchanged == [served.network.network_id]


def test_an_agent_restart_keeps_dnsmasq_and_its_leases(served: Served, tmp_path: Path) -> None:
    served.agent().sync([served.network])
    pid = dnsmasq_pid(served.root, served.network.network_id)
    with guest(served.bridge, served.network.hosts[0].mac_address) as vm:
        assert lease(vm, tmp_path) is not None
    leases = served.files.leases.read_text()
    assert served.network.hosts[0].mac_address in leases

    report = served.agent().sync([served.network])

    assert report.unchanged == [served.network.network_id], report
    assert dnsmasq_pid(served.root, served.network.network_id) == pid
    assert served.files.leases.read_text() == leases


def test_a_new_subnet_restarts_dnsmasq_and_leases_survive(served: Served, tmp_path: Path) -> None:
    agent = served.agent()
    agent.sync([served.network])
    pid = dnsmasq_pid(served.root, served.network.network_id)
    with guest(served.bridge, served.network.hosts[0].mac_address) as vm:
        assert lease(vm, tmp_path) is not None
    second = DhcpSubnet("sxsubnet-b", "10.78.0.0/24", gateway_ip="10.78.0.1")
    served.network.subnets.append(second)
    served.network.dhcp_port.fixed_ips.append(FixedIP(second.subnet_id, "10.78.0.2"))

    report = agent.sync([served.network])

    assert report.restarted == [served.network.network_id], report
    assert dnsmasq_pid(served.root, served.network.network_id) not in (None, pid)
    assert served.network.hosts[0].mac_address in served.files.leases.read_text()
    namespace = f"qdhcp-{served.network.network_id}"
    addresses = sh("ip", "-o", "addr", "show", namespace=namespace)
    assert "10.77.0.2/24" in addresses and "10.78.0.2/24" in addresses


def test_a_dual_stack_port_gets_its_ipv6_address_by_dhcpv6(served: Served) -> None:
    v6 = DhcpSubnet("sxsubnet-6", "fd77::/64", ip_version=6)
    first = served.network.hosts[0]
    served.network.subnets.append(v6)
    served.network.dhcp_port.fixed_ips.append(FixedIP(v6.subnet_id, "fd77::2"))
    first.fixed_ips.append(FixedIP(v6.subnet_id, "fd77::10"))
    assert served.agent().sync([served.network]).started == [served.network.network_id]
    with guest(served.bridge, first.mac_address) as vm:
        assert solicit_v6(vm) == "fd77::10"


def test_a_removed_network_leaves_nothing_behind(served: Served) -> None:
    agent = served.agent()
    agent.sync([served.network])
    assert dnsmasq_pid(served.root, served.network.network_id) is not None

    report = agent.sync([])

    assert report.stopped == [served.network.network_id], report
    network = served.network
    assert_nothing_left(served.root, network.network_id, network.dhcp_port.port_id)


def test_an_address_freed_by_a_deleted_port_goes_to_the_next_port(
    served: Served, tmp_path: Path
) -> None:
    """The old port's lease is released (dhcp_release), not left to expire in a day."""
    served.agent().sync([served.network])
    old = served.network.hosts[0]
    with guest(served.bridge, old.mac_address) as vm:
        got = lease(vm, tmp_path)
    assert got is not None and got["ip"] == "10.77.0.10"
    successor = host("10.77.0.10")
    served.network = dataclasses.replace(served.network, hosts=[successor])
    report = served.agent().sync([served.network])
    assert report.reloaded == [served.network.network_id], report
    with guest(served.bridge, successor.mac_address) as vm:
        got = lease(vm, tmp_path)
    assert got is not None and got["ip"] == "10.77.0.10"
