"""dnsmasq's hosts file, options file and command line for one network."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from saphira.network.dhcp import config
from saphira.network.dhcp.files import NetworkFiles
from saphira.objects.network import (
    DhcpHost,
    DhcpNetwork,
    DhcpSubnet,
    FixedIP,
    HostRoute,
    Segment,
)

V4 = DhcpSubnet("s4", "10.0.0.0/24", gateway_ip="10.0.0.1", dns_nameservers=["192.0.2.53"])
V6 = DhcpSubnet("s6", "2001:db8::/64", ip_version=6, dns_nameservers=["2001:db8::53"])
PORT = DhcpHost("dhcpport-0123456789", "fa:16:3e:00:00:02", [FixedIP("s4", "10.0.0.2")])


def network(*subnets: DhcpSubnet, hosts: list[DhcpHost] | None = None) -> DhcpNetwork:
    return DhcpNetwork(
        network_id="net1",
        segment=Segment("flat", "physnet1", mtu=1450),
        dhcp_port=PORT,
        subnets=list(subnets) or [V4],
        hosts=hosts or [],
    )


def test_names_follow_neutron() -> None:
    assert config.namespace_name("net1") == "qdhcp-net1"
    assert config.device_name("0123456789abcdef") == "tap0123456789a"


def test_hosts_file_has_a_line_per_served_address_sorted_by_mac() -> None:
    hosts = [
        DhcpHost(
            "p2", "FA:16:3E:00:00:0B", [FixedIP("s4", "10.0.0.11"), FixedIP("s6", "2001:db8::b")]
        ),
        DhcpHost("p1", "fa:16:3e:00:00:0a", [FixedIP("s4", "10.0.0.10")], hostname="vm-one"),
        DhcpHost("p3", "fa:16:3e:00:00:0c", [FixedIP("elsewhere", "10.9.0.1")]),
    ]
    assert config.hosts_file(network(V4, V6, hosts=hosts)) == (
        "fa:16:3e:00:00:0a,vm-one,10.0.0.10\n"
        "fa:16:3e:00:00:0b,host-10-0-0-11,10.0.0.11\n"
        "fa:16:3e:00:00:0b,host-2001-db8--b,[2001:db8::b]\n"
    )


def test_hosts_on_a_subnet_without_dhcp_and_bad_hostnames_are_handled() -> None:
    no_dhcp = DhcpSubnet("s4", "10.0.0.0/24", enable_dhcp=False)
    host = DhcpHost("p1", "fa:16:3e:00:00:0a", [FixedIP("s4", "10.0.0.10")], hostname="a,b")
    assert config.hosts_file(network(no_dhcp, hosts=[host])) == ""
    assert (
        config.hosts_file(network(V4, hosts=[host]))
        == "fa:16:3e:00:00:0a,host-10-0-0-10,10.0.0.10\n"
    )


def test_opts_file_routes_metadata_through_the_dhcp_port_then_the_gateway() -> None:
    routed = dataclasses.replace(V4, host_routes=[HostRoute("192.168.0.0/16", "10.0.0.9")])
    routes = "169.254.169.254/32,10.0.0.2,192.168.0.0/16,10.0.0.9,0.0.0.0/0,10.0.0.1"
    assert config.opts_file(network(routed)) == (
        "tag:subnet-s4,option:dns-server,192.0.2.53\n"
        f"tag:subnet-s4,option:classless-static-route,{routes}\n"
        f"tag:subnet-s4,249,{routes}\n"
        "tag:subnet-s4,option:router,10.0.0.1\n"
    )


def test_a_host_route_for_a_default_or_metadata_replaces_ours() -> None:
    own = [HostRoute("0.0.0.0/0", "10.0.0.254"), HostRoute("169.254.169.254/32", "10.0.0.3")]
    subnet = DhcpSubnet("s4", "10.0.0.0/24", gateway_ip="10.0.0.1", host_routes=own)
    assert config.classless_routes(network(subnet), subnet) == [
        ("0.0.0.0/0", "10.0.0.254"),
        ("169.254.169.254/32", "10.0.0.3"),
    ]


def test_without_a_gateway_no_router_is_offered_and_siblings_are_on_link() -> None:
    bare = DhcpSubnet("s4", "10.0.0.0/24")
    sibling = DhcpSubnet("s5", "10.0.5.0/24", gateway_ip="10.0.5.1")
    opts = config.opts_file(network(bare, sibling)).splitlines()
    assert "tag:subnet-s4,option:router" in opts
    assert (
        "tag:subnet-s4,option:classless-static-route,169.254.169.254/32,10.0.0.2,10.0.5.0/24,0.0.0.0"
        in opts
    )
    # The DHCP port has no address on s5, so no metadata route there.
    assert (
        "tag:subnet-s5,option:classless-static-route,10.0.0.0/24,0.0.0.0,0.0.0.0/0,10.0.5.1" in opts
    )


def test_ipv6_subnets_get_dns_only() -> None:
    assert config.opts_file(network(V6)) == "tag:subnet-s6,option6:dns-server,[2001:db8::53]\n"


def test_port_addresses_carry_their_subnet_prefix() -> None:
    port = DhcpHost(
        "dp", "fa:16:3e:00:00:02", [FixedIP("s6", "2001:db8::2"), FixedIP("s4", "10.0.0.2")]
    )
    net = network(V4, V6)
    net.dhcp_port = port
    assert config.port_addresses(net) == ["10.0.0.2/24", "2001:db8::2/64"]


def test_argv_is_stable_and_complete(tmp_path: Path) -> None:
    files = NetworkFiles.under(tmp_path, "net1")
    argv = config.dnsmasq_argv(network(V6, V4), files, 600)
    assert argv == config.dnsmasq_argv(network(V4, V6), files, 600)
    assert argv[0] == "dnsmasq"
    for expected in (
        "--no-hosts",
        "--no-resolv",
        "--bind-interfaces",
        f"--pid-file={tmp_path}/net1/pid",
        f"--dhcp-hostsfile={tmp_path}/net1/host",
        f"--dhcp-optsfile={tmp_path}/net1/opts",
        f"--dhcp-leasefile={tmp_path}/net1/leases",
        "--interface=tapdhcpport-01",
        "--dhcp-option-force=option:mtu,1450",
    ):
        assert expected in argv
    ranges = [arg for arg in argv if arg.startswith("--dhcp-range=")]
    assert ranges == [
        "--dhcp-range=set:subnet-s4,10.0.0.0,static,255.255.255.0,600s",
        "--dhcp-range=set:subnet-s6,2001:db8::,static,64,600s",
    ]


@pytest.mark.parametrize(("cidr", "expected"), [("10.0.0.0/24", 256), ("10.0.0.0/7", 2**24)])
def test_lease_max_is_the_address_count_capped(cidr: str, expected: int, tmp_path: Path) -> None:
    argv = config.dnsmasq_argv(network(DhcpSubnet("s", cidr)), NetworkFiles(tmp_path), 60)
    assert f"--dhcp-lease-max={expected}" in argv
