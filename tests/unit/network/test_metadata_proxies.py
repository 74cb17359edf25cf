"""Which listeners and addresses a network's metadata proxy gets, and its checked command line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from saphira.network.metadata import proxies
from saphira.objects.network import DhcpHost, DhcpNetwork, DhcpSubnet, FixedIP, Segment
from saphira.privsep import metadata, validate

V4 = DhcpSubnet("s4", "10.0.0.0/24", gateway_ip="10.0.0.1")
V6 = DhcpSubnet("s6", "2001:db8::/64", ip_version=6)
OFF = DhcpSubnet("s5", "10.5.0.0/24", enable_dhcp=False)
PORT = DhcpHost("dhcpport-0123456789", "fa:16:3e:00:00:02", [FixedIP("s4", "10.0.0.2")])


def network(*subnets: DhcpSubnet) -> DhcpNetwork:
    return DhcpNetwork("net1", Segment("flat", "physnet1"), PORT, list(subnets))


def test_an_ipv4_network_gets_169_254_169_254_on_its_dhcp_device() -> None:
    assert proxies.listeners(network(V4)) == ["169.254.169.254"]
    assert proxies.device_addresses(network(V4)) == ["169.254.169.254/32"]


def test_an_ipv6_network_gets_the_link_local_listener_on_the_dhcp_device() -> None:
    assert proxies.listeners(network(V6)) == ["fe80::a9fe:a9fe%tapdhcpport-01"]
    assert proxies.device_addresses(network(V6)) == []
    assert proxies.listeners(network(V4, V6))[0] == "169.254.169.254"


def test_subnets_without_dhcp_get_no_listener() -> None:
    assert proxies.listeners(network(OFF)) == []


def test_the_proxy_command_is_fixed_but_for_checked_values(tmp_path: Path) -> None:
    argv = metadata.proxy_argv("net1", "/run/s/metadata_proxy", "/var/lib/s/dhcp/net1",
                               ["169.254.169.254"], 1000, 1000)  # fmt: skip
    assert argv == [
        sys.executable, "-I", "-m", "saphira.network.metadata.ns_proxy",
        "--network-id=net1", "--socket=/run/s/metadata_proxy",
        "--pid-file=/var/lib/s/dhcp/net1/metadata-proxy.pid",
        "--log-file=/var/lib/s/dhcp/net1/metadata-proxy.log",
        "--user=1000", "--group=1000", "--listen=169.254.169.254",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("network_id", "socket", "directory", "listen", "uid", "gid"),
    [
        ("net1", "/s", "/d", ["169.254.169.254"], 0, 1000),  # never root
        ("net1", "/s", "/d", ["169.254.169.254"], 1000, 0),
        ("net1", "/s", "/d", ["10.0.0.2"], 1000, 1000),  # only the metadata addresses
        ("net1", "/s", "/d", ["fe80::a9fe:a9fe%eth0 -x"], 1000, 1000),
        ("net1", "/s", "/d", [], 1000, 1000),
        ("--user=0", "/s", "/d", ["169.254.169.254"], 1000, 1000),
        ("net1", "/s/../etc", "/d", ["169.254.169.254"], 1000, 1000),
        ("net1", "/s", "relative", ["169.254.169.254"], 1000, 1000),
    ],
)
def test_the_helper_refuses_another_proxy_command(
    network_id: str, socket: str, directory: str, listen: list[str], uid: int, gid: int
) -> None:
    with pytest.raises(validate.InvalidArgument):
        metadata.proxy_argv(network_id, socket, directory, listen, uid, gid)
