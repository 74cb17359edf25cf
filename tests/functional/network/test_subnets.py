"""Subnets: defaults Neutron computes, and every check that turns input away."""

from __future__ import annotations

import pytest

from tests.functional.network.conftest import Neutron


def test_defaults_and_shape(neutron: Neutron) -> None:
    network = neutron.network()
    subnet = neutron.subnet(network["id"], "10.0.0.0/24", name="s")
    assert subnet["gateway_ip"] == "10.0.0.1"
    assert subnet["allocation_pools"] == [{"start": "10.0.0.2", "end": "10.0.0.254"}]
    assert (subnet["enable_dhcp"], subnet["dns_nameservers"], subnet["host_routes"]) == (
        True, [], []
    )  # fmt: skip
    assert subnet["ipv6_ra_mode"] is None and subnet["subnetpool_id"] is None
    shown = neutron.ok("GET", f"/v2.0/networks/{network['id']}")["network"]
    assert shown["subnets"] == [subnet["id"]]
    no_gateway = neutron.subnet(network["id"], "10.2.0.0/29", gateway_ip=None)
    assert no_gateway["gateway_ip"] is None
    assert no_gateway["allocation_pools"] == [{"start": "10.2.0.1", "end": "10.2.0.6"}]
    middle = neutron.subnet(network["id"], "10.3.0.0/29", gateway_ip="10.3.0.4")
    assert middle["allocation_pools"] == [
        {"start": "10.3.0.1", "end": "10.3.0.3"},
        {"start": "10.3.0.5", "end": "10.3.0.6"},
    ]


def test_options_are_kept_and_updated(neutron: Neutron) -> None:
    network = neutron.network()
    subnet = neutron.subnet(
        network["id"], "10.4.0.0/24",
        allocation_pools=[{"start": "10.4.0.10", "end": "10.4.0.20"}],
        dns_nameservers=["10.4.0.53", "8.8.8.8"],
        host_routes=[{"destination": "192.168.0.0/16", "nexthop": "10.4.0.254"}],
        enable_dhcp=False,
    )  # fmt: skip
    assert subnet["allocation_pools"] == [{"start": "10.4.0.10", "end": "10.4.0.20"}]
    assert subnet["dns_nameservers"] == ["10.4.0.53", "8.8.8.8"]
    assert subnet["host_routes"][0]["nexthop"] == "10.4.0.254"
    path = f"/v2.0/subnets/{subnet['id']}"
    body = {"subnet": {"dns_nameservers": [], "gateway_ip": "10.4.0.9", "enable_dhcp": True}}
    updated = neutron.ok("PUT", path, json=body)["subnet"]
    assert (updated["dns_nameservers"], updated["gateway_ip"]) == ([], "10.4.0.9")
    assert updated["revision_number"] == 1
    into_pool = {"subnet": {"gateway_ip": "10.4.0.15"}}
    assert neutron.fault("PUT", path, 409, json=into_pool) == "GatewayConflictWithAllocationPools"
    assert neutron.fault("PUT", path, 400, json={"subnet": {"cidr": "10.5.0.0/24"}}) == (
        "HTTPBadRequest"
    )


def test_bad_input(neutron: Neutron) -> None:
    network = neutron.network()
    net_id = network["id"]
    neutron.subnet(net_id, "10.0.0.0/24")

    def refused(status: int, **attrs: object) -> str:
        body = {"subnet": {"network_id": net_id, "ip_version": 4, **attrs}}
        return neutron.fault("POST", "/v2.0/subnets", status, json=body)

    assert refused(400, cidr="10.0.0.0/25") == "InvalidInput"  # overlaps
    assert refused(400, cidr="10.0.0.128/23") == "HTTPBadRequest"  # host bits set
    assert refused(400, cidr="not-a-cidr") == "HTTPBadRequest"
    assert refused(400, cidr="fd00::/64") == "InvalidInput"  # version mismatch
    assert refused(400) == "HTTPBadRequest"  # no cidr
    unversioned = {"subnet": {"network_id": net_id, "cidr": "10.9.0.0/24"}}
    assert neutron.fault("POST", "/v2.0/subnets", 400, json=unversioned) == "HTTPBadRequest"
    assert refused(400, cidr="10.9.0.0/24", gateway_ip="10.9.0.255") == "InvalidInput"
    pools = [{"start": "10.9.0.10", "end": "10.9.1.20"}]
    assert refused(400, cidr="10.9.0.0/24", allocation_pools=pools) == "OutOfBoundsAllocationPool"
    pools = [{"start": "10.9.0.10", "end": "10.9.0.20"}, {"start": "10.9.0.15", "end": "10.9.0.30"}]
    assert refused(409, cidr="10.9.0.0/24", allocation_pools=pools) == "OverlappingAllocationPools"
    pools = [{"start": "10.9.0.20", "end": "10.9.0.10"}]
    assert refused(400, cidr="10.9.0.0/24", allocation_pools=pools) == "InvalidAllocationPool"
    assert refused(400, cidr="10.9.0.0/24", dns_nameservers=["1.1.1.1", "1.1.1.1"]) == (
        "HTTPBadRequest"
    )
    assert refused(400, cidr="10.9.0.0/24", ip_version=5) == "HTTPBadRequest"
    assert refused(400, cidr="10.9.0.0/24", ipv6_address_mode="slaac") == "InvalidInput"
    nowhere = "00000000-0000-0000-0000-000000000000"
    missing = {"subnet": {"network_id": nowhere, "ip_version": 4, "cidr": "10.9.0.0/24"}}
    assert neutron.fault("POST", "/v2.0/subnets", 404, json=missing) == "NetworkNotFound"
    subnets = neutron.ok("GET", f"/v2.0/subnets?network_id={net_id}")["subnets"]
    assert len(subnets) == 1


def test_ipv6_slaac_addresses_follow_the_mac(neutron: Neutron) -> None:
    network = neutron.network()
    v6 = neutron.subnet(
        network["id"], "fd00:1::/64", ipv6_ra_mode="slaac", ipv6_address_mode="slaac"
    )
    assert v6["gateway_ip"] == "fd00:1::1"
    assert v6["allocation_pools"] == [{"start": "fd00:1::2", "end": "fd00:1::ffff:ffff:ffff:ffff"}]
    port = neutron.port(network["id"], mac_address="fa:16:3e:11:22:33")
    assert port["fixed_ips"] == [
        {"subnet_id": v6["id"], "ip_address": "fd00:1::f816:3eff:fe11:2233"}
    ]
    bad = {"subnet": {"network_id": network["id"], "ip_version": 6, "cidr": "fd00:2::/80",
                      "ipv6_address_mode": "slaac"}}  # fmt: skip
    assert neutron.fault("POST", "/v2.0/subnets", 400, json=bad) == "InvalidInput"
    stateful = neutron.subnet(network["id"], "fd00:3::/64", ipv6_address_mode="dhcpv6-stateful")
    both = neutron.port(network["id"])
    assert {ip["subnet_id"] for ip in both["fixed_ips"]} == {v6["id"], stateful["id"]}


def test_subnet_on_someone_elses_network(neutron: Neutron) -> None:
    private = neutron.network("demo")
    body = {"subnet": {"network_id": private["id"], "ip_version": 4, "cidr": "10.0.0.0/24"}}
    assert neutron.fault("POST", "/v2.0/subnets", 404, "alt", json=body) == "NetworkNotFound"
    shared = neutron.network(shared=True)
    body["subnet"]["network_id"] = shared["id"]
    assert neutron.fault("POST", "/v2.0/subnets", 403, "alt", json=body) == "PolicyNotAuthorized"
    subnet = neutron.subnet(shared["id"], "10.0.0.0/24")
    seen = neutron.ok("GET", "/v2.0/subnets", user="alt")["subnets"]
    assert [s["id"] for s in seen] == [subnet["id"]]


def test_delete_refuses_allocations(neutron: Neutron) -> None:
    network = neutron.network()
    subnet = neutron.subnet(network["id"], "10.0.0.0/24")
    port = neutron.port(network["id"])
    path = f"/v2.0/subnets/{subnet['id']}"
    assert neutron.fault("DELETE", path, 409) == "SubnetInUse"
    neutron.ok("DELETE", f"/v2.0/ports/{port['id']}", 204)
    neutron.ok("DELETE", path, 204)
    assert neutron.ok("GET", f"/v2.0/networks/{network['id']}")["network"]["subnets"] == []


@pytest.mark.parametrize("mode", ["slaac", "dhcpv6-stateless"])
def test_delete_takes_self_assigned_addresses_off_the_ports(neutron: Neutron, mode: str) -> None:
    network = neutron.network()
    v4 = neutron.subnet(network["id"], "10.0.0.0/24")
    auto = neutron.subnet(network["id"], "2001:db8::/64", ipv6_ra_mode=mode, ipv6_address_mode=mode)
    port = neutron.port(network["id"])
    assert {ip["subnet_id"] for ip in port["fixed_ips"]} == {v4["id"], auto["id"]}
    neutron.ok("DELETE", f"/v2.0/subnets/{auto['id']}", 204)
    shown = neutron.ok("GET", f"/v2.0/ports/{port['id']}")["port"]
    assert [ip["subnet_id"] for ip in shown["fixed_ips"]] == [v4["id"]]
    assert neutron.fault("DELETE", f"/v2.0/networks/{network['id']}", 409) == "NetworkInUse"
