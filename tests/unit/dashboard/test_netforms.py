"""The Create Network and Add Subnet forms read into requests, or what is wrong."""

from __future__ import annotations

import pytest

from saphira.dashboard import netforms
from saphira.dashboard.netforms import NetworkRequest, SubnetRequest


def test_a_member_gets_a_project_network_whatever_the_form_says() -> None:
    form = {"name": " net1 ", "network_type": "flat", "physical_network": "physnet1",
            "shared": "on"}  # fmt: skip
    assert netforms.network(form, admin=False) == NetworkRequest("net1")
    assert netforms.network(form, admin=True) == NetworkRequest("net1", True, "flat", "physnet1")
    vlan = {"name": "v", "network_type": "vlan", "physical_network": "physnet1",
            "segmentation_id": "1001"}  # fmt: skip
    assert netforms.network(vlan, admin=True) == NetworkRequest("v", False, "vlan", "physnet1",
                                                                1001)  # fmt: skip


@pytest.mark.parametrize(
    ("form", "says"),
    [
        ({"name": ""}, "Give the network a name."),
        ({"name": "n", "network_type": "gre"}, "flat or vlan"),
        ({"name": "n", "network_type": "flat"}, "needs its physical network"),
        ({"name": "n", "network_type": "vlan", "segmentation_id": "5000"}, "1 to 4094"),
        ({"name": "n", "network_type": "flat", "physical_network": "p", "segmentation_id": "7"},
         "for a vlan network"),
    ],
)  # fmt: skip
def test_a_wrong_network_form_says_why(form: dict[str, str], says: str) -> None:
    answer = netforms.network(form, admin=True)
    assert isinstance(answer, str) and says in answer


def test_a_subnet_with_its_gateway_dhcp_pools_and_dns_servers() -> None:
    form = {"subnet_name": "s", "cidr": "10.0.0.1/24", "gateway": "10.0.0.254", "dhcp": "on",
            "pools": "10.0.0.10,10.0.0.50\n\n10.0.0.100, 10.0.0.120\n",
            "dns": "192.0.2.53\n198.51.100.53"}  # fmt: skip
    assert netforms.subnet(form) == SubnetRequest(
        "s", "10.0.0.0/24", 4, "10.0.0.254", False, True,
        (("10.0.0.10", "10.0.0.50"), ("10.0.0.100", "10.0.0.120")),
        ("192.0.2.53", "198.51.100.53"),
    )  # fmt: skip
    bare = netforms.subnet({"cidr": "2001:db8::/64", "no_gateway": "on"})
    assert bare == SubnetRequest("", "2001:db8::/64", 6, "", True, False, (), ())
    assert netforms.subnet({"cidr": " "}) is None  # a network without a subnet yet


@pytest.mark.parametrize(
    ("form", "says"),
    [
        ({"cidr": "10.0.0.0/33"}, "is not a network address"),
        ({"cidr": "10.0.0.0/24", "gateway": "10.0.1.1"}, "The gateway must be an address of"),
        ({"cidr": "10.0.0.0/24", "gateway": "10.0.0.1", "no_gateway": "on"}, "The gateway"),
        ({"cidr": "10.0.0.0/24", "pools": "10.0.0.5"}, "not “10.0.0.5”"),
        ({"cidr": "10.0.0.0/24", "pools": "10.0.0.5,10.9.0.9"}, "both in 10.0.0.0/24"),
        ({"cidr": "10.0.0.0/24", "dns": "dns.example"}, "Each DNS server is an IP address"),
    ],
)
def test_a_wrong_subnet_form_says_why(form: dict[str, str], says: str) -> None:
    answer = netforms.subnet(form)
    assert isinstance(answer, str) and says in answer
