"""The compute API's network proxies (up to 2.35) and a server's security groups,
through the real network API: tempest's schemas, Nova's statuses and words."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from tempest.lib.api_schema.response.compute.v2_1 import security_groups as sg21
from tempest.lib.api_schema.response.compute.v2_1 import servers as servers21
from tempest.lib.api_schema.response.compute.v2_1 import tenant_networks as tn21

from tests.functional.engine.conftest import Plane
from tests.functional.engine.networks import (
    Neutron,
    check,
    project,
    refused,
    serve_network,
    server_on,
)
from tests.wsgi import JsonResponse

GONE = "This resource is no longer available. No forwarding address is given."
NETWORK_FIELDS = {"id", "cidr", "netmask", "gateway", "broadcast", "dns1", "dns2", "cidr_v6",
                  "gateway_v6", "label", "netmask_v6"}  # fmt: skip


@pytest.fixture
def neutron(plane: Plane) -> Iterator[Neutron]:
    with serve_network(plane) as service:
        yield service


def api(plane: Plane, method: str, path: str, body: Any = None, **kw: Any) -> JsonResponse:
    return plane.api.call(method, path, body, **kw)


def group(plane: Plane, name: str, description: str = "d") -> dict[str, Any]:
    body = {"security_group": {"name": name, "description": description}}
    response = api(plane, "POST", "/os-security-groups", body)
    made: dict[str, Any] = check(sg21.create_security_group, response)["security_group"]
    return made


def rule(plane: Plane, version: str | None = None, **fields: Any) -> JsonResponse:
    body = {"security_group_rule": fields}
    return api(plane, "POST", "/os-security-group-rules", body, version=version)


def test_networks_as_nova_network_showed_them(plane: Plane, neutron: Neutron) -> None:
    mine = neutron.network("mine", project(plane), "10.40.0.0/24")
    listed = api(plane, "GET", "/os-networks").get_json()["networks"]
    assert listed == [{**dict.fromkeys(NETWORK_FIELDS), "id": mine["id"], "label": "mine"}]
    as_admin = api(plane, "GET", f"/os-networks/{mine['id']}", user="admin").get_json()
    assert len(as_admin["network"]) == 32 and as_admin["network"]["mtu"] is None
    refused(api(plane, "GET", f"/os-networks/{uuid.uuid4()}"), 404, "Network not found")
    tenant = check(tn21.list_tenant_networks, api(plane, "GET", "/os-tenant-networks"))
    assert tenant["networks"] == [{"id": mine["id"], "cidr": "None", "label": "mine"}]
    one = check(tn21.get_tenant_network, api(plane, "GET", f"/os-tenant-networks/{mine['id']}"))
    assert one["network"]["label"] == "mine"
    for path in ("/os-networks", "/os-tenant-networks", "/os-security-groups"):
        assert api(plane, "GET", path, version="2.35").status_code == 200
        assert api(plane, "GET", path, version="2.36").status_code == 404
    for method, path in (("POST", "/os-networks"), ("POST", "/os-networks/add"),
                         ("DELETE", f"/os-networks/{mine['id']}"),
                         ("POST", f"/os-networks/{mine['id']}/action"),
                         ("POST", "/os-tenant-networks"),
                         ("DELETE", f"/os-tenant-networks/{mine['id']}")):  # fmt: skip
        response = api(plane, method, path, {"network": {}}, version="2.90")
        assert response.get_json() == {"computeFault": {"code": 410, "message": GONE}}
    assert neutron.ok("GET", f"/networks/{mine['id']}")["network"]["name"] == "mine"


def test_security_groups_create_list_update_delete(plane: Plane, neutron: Neutron) -> None:
    web = group(plane, "web", "front")
    assert (web["rules"], web["tenant_id"]) == ([], project(plane))  # only egress so far
    listed = check(sg21.list_security_groups, api(plane, "GET", "/os-security-groups"))
    assert [g["name"] for g in listed["security_groups"]] == ["default", "web"]
    assert web in listed["security_groups"]
    (default,) = [g for g in listed["security_groups"] if g["name"] == "default"]
    assert [(r["group"]["name"], r["ip_range"], r["from_port"]) for r in default["rules"]] == [
        ("default", {}, None),
        ("default", {}, None),
    ]  # IPv4 and IPv6 from the group itself
    shown = check(sg21.get_security_group, api(plane, "GET", f"/os-security-groups/{web['id']}"))
    assert shown["security_group"] == web
    body = {"security_group": {"name": "www", "description": "renamed"}}
    changed = check(sg21.update_security_group,
                    api(plane, "PUT", f"/os-security-groups/{web['id']}", body))  # fmt: skip
    assert (changed["security_group"]["name"], changed["security_group"]["description"]) == (
        "www", "renamed")  # fmt: skip
    paged = api(plane, "GET", "/os-security-groups?limit=1&offset=1").get_json()
    assert len(paged["security_groups"]) == 1
    everyone = api(plane, "GET", "/os-security-groups?all_tenants=1", user="admin").get_json()
    assert {g["tenant_id"] for g in everyone["security_groups"]} >= {project(plane)}

    deleted = api(plane, "DELETE", f"/os-security-groups/{web['id']}")
    assert deleted.status_code == 202 and not deleted.get_data()
    refused(api(plane, "GET", f"/os-security-groups/{web['id']}"), 404,
            f"Security group {web['id']} does not exist")  # fmt: skip
    refused(api(plane, "GET", "/os-security-groups/nope"), 400, "Security group id should be uuid")
    assert api(plane, "DELETE", f"/os-security-groups/{default['id']}").status_code == 400
    assert api(plane, "POST", "/os-security-groups",
               {"security_group": {"name": "x"}}).status_code == 400  # fmt: skip
    too_long = {"security_group": {"name": "x" * 256, "description": ""}}
    assert api(plane, "POST", "/os-security-groups", too_long).status_code == 400


def test_security_group_rules(plane: Plane, neutron: Neutron) -> None:
    web, peers = group(plane, "web"), group(plane, "peers")
    made = check(sg21.create_security_group_rule, rule(
        plane, parent_group_id=web["id"], ip_protocol="tcp", from_port=80, to_port=80,
        cidr="10.0.0.0/8"))["security_group_rule"]  # fmt: skip
    assert made == {"id": made["id"], "parent_group_id": web["id"], "ip_protocol": "tcp",
                    "from_port": 80, "to_port": 80, "group": {},
                    "ip_range": {"cidr": "10.0.0.0/8"}}  # fmt: skip
    refused(
        rule(
            plane,
            parent_group_id=web["id"],
            ip_protocol="tcp",
            from_port=80,
            to_port=80,
            cidr="10.0.0.0/8",
        ),
        400,
        f"This rule already exists in group {web['id']}",
    )
    from_group = check(sg21.create_security_group_rule, rule(
        plane, parent_group_id=web["id"], group_id=peers["id"], ip_protocol="icmp"))  # fmt: skip
    assert from_group["security_group_rule"]["group"] == {"name": "peers",
                                                          "tenant_id": project(plane)}  # fmt: skip
    assert (from_group["security_group_rule"]["from_port"],
            from_group["security_group_rule"]["to_port"]) == (-1, -1)  # fmt: skip
    shown = api(plane, "GET", f"/os-security-groups/{web['id']}").get_json()["security_group"]
    both = {made["id"], from_group["security_group_rule"]["id"]}
    assert {r["id"] for r in shown["rules"]} == both
    bad: list[tuple[dict[str, object], str]] = [
        ({"ip_protocol": "gre", "from_port": 1, "to_port": 2}, "Invalid IP protocol gre."),
        ({"ip_protocol": "tcp", "from_port": 90, "to_port": 80},
         "Invalid port range 90:80. Former value cannot be greater than the later"),
        ({"ip_protocol": "tcp", "from_port": "a", "to_port": 80},
         "Invalid input received: To and From ports must be integers"),
        ({"ip_protocol": "tcp"}, "Not enough parameters to build a valid rule."),
        ({"ip_protocol": "tcp", "from_port": 1, "to_port": 2, "cidr": "10.0.0.1"},
         "10.0.0.1 is not a valid IP network."),
    ]  # fmt: skip
    for fields, message in bad:
        refused(rule(plane, None, parent_group_id=web["id"], **fields), 400, message)
    refused(rule(plane, parent_group_id="nope"), 400,
            "Invalid input for field/attribute parent_group_id. Value: nope. 'nope' is not "
            "a 'uuid'")  # fmt: skip
    missing = str(uuid.uuid4())
    refused(rule(plane, parent_group_id=missing, ip_protocol="tcp", from_port=1, to_port=2), 404,
            f"Security group {missing} does not exist")  # fmt: skip
    assert api(plane, "DELETE", f"/os-security-group-rules/{made['id']}").status_code == 202
    refused(api(plane, "DELETE", f"/os-security-group-rules/{made['id']}"), 404,
            f"Security group rule {made['id']} does not exist")  # fmt: skip
    assert rule(plane, parent_group_id=web["id"], version="2.36").status_code == 404
    api(plane, "DELETE", f"/os-security-groups/{peers['id']}")
    left = api(plane, "GET", f"/os-security-groups/{web['id']}").get_json()["security_group"]
    assert left["rules"] == []  # the rule from the deleted group went with it


def test_a_servers_groups_follow_its_ports(plane: Plane, neutron: Neutron) -> None:
    neutron.wire("host-a")
    plane.add_host("host-a")
    network = neutron.network("private", project(plane), "10.30.0.0/24")
    server_id = server_on(plane, network)
    shown = check(servers21.get_server, api(plane, "GET", f"/servers/{server_id}"))
    assert shown["server"]["security_groups"] == [{"name": "default"}]
    web = group(plane, "web")
    add = {"addSecurityGroup": {"name": "web"}}
    assert plane.api.action(server_id, add).status_code == 202
    (port,) = neutron.ports(device_id=server_id)
    assert web["id"] in port["security_groups"] and len(port["security_groups"]) == 2
    assert api(plane, "DELETE", f"/os-security-groups/{web['id']}").status_code == 400  # in use
    listed = check(sg21.list_security_groups,
                   api(plane, "GET", f"/servers/{server_id}/os-security-groups"))  # fmt: skip
    assert [g["name"] for g in listed["security_groups"]] == ["default", "web"]
    details = api(plane, "GET", "/servers/detail").get_json()["servers"]
    assert sorted(g["name"] for g in details[0]["security_groups"]) == ["default", "web"]
    assert plane.api.action(server_id, {"removeSecurityGroup": {"name": web["id"]}}).status_code \
        == 202  # fmt: skip
    assert neutron.show_port(port["id"])["security_groups"] == [
        g["id"] for g in listed["security_groups"] if g["name"] == "default"
    ]
    refused(plane.api.action(server_id, {"removeSecurityGroup": {"name": "web"}}), 404,
            f"Security group web not associated with the instance {server_id}")  # fmt: skip
    refused(plane.api.action(server_id, {"addSecurityGroup": {"name": "nope"}}), 404,
            f"Security group nope is not found for project {project(plane)}")  # fmt: skip
    group(plane, "twin")
    group(plane, "twin")
    refused(plane.api.action(server_id, {"addSecurityGroup": {"name": "twin"}}), 409,
            "Multiple security_group matches found for name 'twin', use an ID to be more "
            "specific.")  # fmt: skip
    refused(plane.api.action(server_id, {"addSecurityGroup": {"name": " "}}), 400,
            "Security group name cannot be empty")  # fmt: skip
    assert plane.api.action(server_id, {"addSecurityGroup": {}}).status_code == 400
    assert api(plane, "DELETE", f"/os-security-groups/{web['id']}").status_code == 202


def test_a_server_without_ports_has_no_groups(plane: Plane, neutron: Neutron) -> None:
    neutron.wire("host-a")
    plane.add_host("host-a")
    server_id = plane.api.boot()
    shown = check(servers21.get_server, api(plane, "GET", f"/servers/{server_id}"))
    assert "security_groups" not in shown["server"]
    listed = check(sg21.list_security_groups,
                   api(plane, "GET", f"/servers/{server_id}/os-security-groups"))  # fmt: skip
    assert listed == {"security_groups": []}
    refused(plane.api.action(server_id, {"addSecurityGroup": {"name": "default"}}), 404,
            f"instance_id {server_id} could not be found as device id on any ports")  # fmt: skip
