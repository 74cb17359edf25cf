"""Acceptance: the real `openstack` CLI against `saphira up` (issue 6, network API)."""

from __future__ import annotations

from typing import Any

import pytest
from openstack.exceptions import NotFoundException

from tests.functional.clients import sdk
from tests.functional.cloud import Cloud


def _refused(cloud: Cloud, *args: str, says: str, user: str = "admin") -> None:
    """The CLI fails cleanly: Neutron's message, no traceback."""
    result = cloud.openstack(*args, cloud=user, check=False)
    assert result.returncode != 0, result.stdout
    assert says in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def _ports(cloud: Cloud, network: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = cloud.openstack(
        "port", "list", "--network", network, "-f", "json"
    )
    return found


def test_create_network_subnet_port(cloud: Cloud) -> None:
    network = cloud.openstack("network", "create", "n1", "-f", "json")
    assert network["status"] == "ACTIVE" and network["provider:network_type"] == "vlan"
    subnet = cloud.openstack(
        "subnet", "create", "--network", "n1", "--subnet-range", "10.0.0.0/24", "s1", "-f", "json"
    )
    assert subnet["gateway_ip"] == "10.0.0.1"
    assert subnet["allocation_pools"] == [{"start": "10.0.0.2", "end": "10.0.0.254"}]
    port = cloud.openstack("port", "create", "--network", "n1", "p1", "-f", "json")
    (fixed,) = port["fixed_ips"]
    assert fixed["subnet_id"] == subnet["id"] and fixed["ip_address"].startswith("10.0.0.")
    assert port["mac_address"].startswith("fa:16:3e:") and port["status"] == "DOWN"
    shown = cloud.openstack("network", "show", "n1", "-f", "json")
    assert shown["subnets"] == [subnet["id"]]
    _refused(
        cloud, "subnet", "create", "--network", "n1", "--subnet-range", "10.0.0.0/25", "s2",
        says="overlaps with another subnet",
    )  # fmt: skip
    _refused(
        cloud, "port", "create", "--network", "n1", "--fixed-ip",
        "subnet=s1,ip-address=10.9.0.5", "p2", says="is not a valid IP for the specified subnet",
    )  # fmt: skip
    subnets = cloud.openstack("subnet", "list", "--network", "n1", "-f", "json")
    assert [s["Name"] for s in subnets] == ["s1"]
    assert [p["Name"] for p in _ports(cloud, "n1")] == ["p1"]


def test_exhausted_pool(cloud: Cloud) -> None:
    cloud.openstack("network", "create", "tiny")
    cloud.openstack("subnet", "create", "--network", "tiny", "--subnet-range", "10.8.0.0/30", "t")
    cloud.openstack("port", "create", "--network", "tiny", "t1")
    for name in ("t2", "t3"):
        _refused(cloud, "port", "create", "--network", "tiny", name,
                 says="No more IP addresses available on network")  # fmt: skip
    assert [p["Name"] for p in _ports(cloud, "tiny")] == ["t1"]


def test_port_on_another_projects_network(cloud: Cloud) -> None:
    network = cloud.openstack("network", "create", "admins-own", "-f", "json")
    _refused(cloud, "port", "create", "--network", network["id"], "sneaky", user="demo",
             says=f"No Network found for {network['id']}")  # fmt: skip
    with pytest.raises(NotFoundException, match=f"Network {network['id']} could not be found"):
        sdk(cloud.clouds_yaml, "demo").network.create_port(network_id=network["id"])
    assert _ports(cloud, network["id"]) == []
    mine = cloud.openstack("network", "list", "-f", "json", cloud="demo")
    assert network["id"] not in [n["ID"] for n in mine]


def test_security_groups_and_rules(cloud: Cloud) -> None:
    group = cloud.openstack("security", "group", "create", "web", "-f", "json")
    assert {r["direction"] for r in group["rules"]} == {"egress"}
    rule = cloud.openstack(
        "security", "group", "rule", "create", "--protocol", "tcp", "--dst-port", "80", "web",
        "-f", "json",
    )  # fmt: skip
    assert (rule["protocol"], rule["port_range_min"], rule["port_range_max"]) == ("tcp", 80, 80)
    _refused(cloud, "security", "group", "rule", "create", "--protocol", "tcp", "--dst-port",
             "80", "web", says="Security group rule already exists")  # fmt: skip
    rules = cloud.openstack("security", "group", "rule", "list", "web", "-f", "json")
    assert rule["id"] in [r["ID"] for r in rules]
    cloud.openstack("security", "group", "rule", "delete", rule["id"])
    rules = cloud.openstack("security", "group", "rule", "list", "web", "-f", "json")
    assert rule["id"] not in [r["ID"] for r in rules]
    groups = cloud.openstack("security", "group", "list", "-f", "json", cloud="demo")
    assert [g["Name"] for g in groups] == ["default"]
    default = groups[0]["ID"]
    _refused(cloud, "security", "group", "delete", default, user="demo",
             says="Failed to delete")  # fmt: skip


def test_agents_and_quotas(cloud: Cloud) -> None:
    assert cloud.openstack("network", "agent", "list", "-f", "json") == []
    network_quota = cloud.openstack("quota", "show", "--network", "-f", "json")
    limits = {row["Resource"]: row["Limit"] for row in network_quota}
    assert (limits["networks"], limits["ports"], limits["security_groups"]) == (100, 500, 10)
    everything = cloud.openstack("quota", "show", "-f", "json")
    resources = {row["Resource"] for row in everything}
    assert {"instances", "networks", "subnets", "ports"} <= resources
    cloud.openstack("quota", "set", "--networks", "7", "demo")
    shown = cloud.openstack("quota", "show", "--network", "demo", "-f", "json")
    assert {row["Resource"]: row["Limit"] for row in shown}["networks"] == 7
