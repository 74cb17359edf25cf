"""The home project's resources in each API, made by its member (or the admin)."""

from __future__ import annotations

import time
from typing import Any

import requests

from tests.functional.policy.calls import TIMEOUT, Http
from tests.functional.policy.requests_spec import new_uuid


def proxy_image(member: Http) -> str:
    """A private image with a property, for the compute API's image proxy to show,
    change and delete (the shared home image stays for the image API's routes)."""
    body = {"name": "pm-proxy", "container_format": "bare", "disk_format": "raw", "k1": "v"}
    return str(member("image", "POST", "/v2/images", body)["id"])


def wait_active(http: Http, server_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while True:
        server: dict[str, Any] = http("compute", "GET", f"/v2.1/servers/{server_id}")["server"]
        if server["status"] in ("ACTIVE", "ERROR") or time.monotonic() > deadline:
            assert server["status"] == "ACTIVE", server
            return server
        time.sleep(0.5)


def image(member: Http, third: str) -> str:
    image = member(
        "image",
        "POST",
        "/v2/images",
        {
            "name": "pm-home",
            "visibility": "shared",
            "container_format": "bare",
            "disk_format": "raw",
        },
    )
    response = requests.put(
        f"{member.roots['image']}/v2/images/{image['id']}/file",
        data=b"\0" * 4096,
        headers={"X-Auth-Token": member.token, "Content-Type": "application/octet-stream"},
        timeout=TIMEOUT,
    )
    assert response.status_code == 204, response.text
    member("image", "POST", f"/v2/images/{image['id']}/members", {"member": third})
    return str(image["id"])


def network(member: Http, name: str, cidr: str) -> dict[str, str]:
    net = member("network", "POST", "/v2.0/networks", {"network": {"name": name}})["network"]
    subnet = member(
        "network",
        "POST",
        "/v2.0/subnets",
        {"subnet": {"network_id": net["id"], "ip_version": 4, "cidr": cidr}},
    )["subnet"]
    port = member("network", "POST", "/v2.0/ports", {"port": {"network_id": net["id"]}})["port"]
    group = member("network", "POST", "/v2.0/security-groups", {"security_group": {"name": name}})[
        "security_group"
    ]
    rule = member(
        "network",
        "POST",
        "/v2.0/security-group-rules",
        {
            "security_group_rule": {
                "security_group_id": group["id"],
                "direction": "ingress",
                "protocol": "tcp",
                "port_range_min": 22,
                "port_range_max": 22,
            }
        },
    )["security_group_rule"]
    return {
        "net_id": net["id"],
        "subnet_id": subnet["id"],
        "port_id": port["id"],
        "group_id": group["id"],
        "rule_id": rule["id"],
        "name": name,
    }


def compute(
    admin: Http, member: Http, image: str, net: dict[str, str], third: str
) -> dict[str, str]:
    flavor = admin(
        "compute",
        "POST",
        "/v2.1/flavors",
        {"flavor": {"name": "pm-public", "ram": 64, "vcpus": 1, "disk": 0}},
    )["flavor"]["id"]
    admin(
        "compute",
        "POST",
        f"/v2.1/flavors/{flavor}/os-extra_specs",
        {"extra_specs": {"pm:key": "v"}},
    )
    private = admin(
        "compute",
        "POST",
        "/v2.1/flavors",
        {
            "flavor": {
                "name": "pm-private",
                "ram": 64,
                "vcpus": 1,
                "disk": 0,
                "os-flavor-access:is_public": False,
            }
        },
    )["flavor"]["id"]
    victim = admin(
        "compute",
        "POST",
        "/v2.1/flavors",
        {"flavor": {"name": "pm-victim", "ram": 64, "vcpus": 1, "disk": 0}},
    )["flavor"]["id"]
    key = member(
        "compute",
        "POST",
        "/v2.1/os-keypairs",
        {"keypair": {"name": "pm-home-key"}},
        version="compute 2.10",
    )["keypair"]["name"]
    group = member(
        "compute",
        "POST",
        "/v2.1/os-server-groups",
        {"server_group": {"name": "pm-home", "policy": "affinity"}},
    )["server_group"]["id"]
    server = member(
        "compute",
        "POST",
        "/v2.1/servers",
        {
            "server": {
                "name": "pm-home",
                "flavorRef": flavor,
                "imageRef": image,
                "networks": "none",
                "metadata": {"k1": "v1"},
                "tags": ["t1"],
            }
        },
    )["server"]["id"]
    wait_active(member, server)
    actions = member("compute", "GET", f"/v2.1/servers/{server}/os-instance-actions")[
        "instanceActions"
    ]
    hypervisor = admin("compute", "GET", "/v2.1/os-hypervisors")["hypervisors"][0]
    proxy_sg = member(
        "compute",
        "POST",
        "/v2.1/os-security-groups",
        {"security_group": {"name": "pm-proxy", "description": "pm"}},
        version="compute 2.35",
    )["security_group"]
    proxy_rule = member(
        "compute",
        "POST",
        "/v2.1/os-security-group-rules",
        {
            "security_group_rule": {
                "parent_group_id": proxy_sg["id"],
                "ip_protocol": "tcp",
                "from_port": 22,
                "to_port": 22,
                "cidr": "0.0.0.0/0",
            }
        },
        version="compute 2.35",
    )["security_group_rule"]
    return {
        "flavor_id": flavor,
        "private_flavor": private,
        "victim_flavor": victim,
        "extra_key": "pm:key",
        "keypair_name": key,
        "group_id": group,
        "server_id": server,
        "image_id": image,
        "port_id": net["port_id"],
        "network_id": net["net_id"],
        "network": net["name"],
        "request_id": actions[0]["request_id"],
        "hypervisor_id": str(hypervisor["id"]),
        "pattern": hypervisor["hypervisor_hostname"],
        "service_id": new_uuid(),
        "key": "k1",
        "tag": "t1",
        "class_name": "default",
        "security_group_id": proxy_sg["id"],
        "rule_id": str(proxy_rule["id"]),
        "third_project": third,
    }


def placement(admin: Http, home: str, user: str) -> dict[str, str]:
    uuid = new_uuid()
    admin("placement", "POST", "/resource_providers", {"name": "pm-home", "uuid": uuid})
    admin(
        "placement",
        "PUT",
        f"/resource_providers/{uuid}/inventories",
        {"resource_provider_generation": 0, "inventories": {"VCPU": {"total": 4}}},
    )
    admin("placement", "PUT", "/resource_classes/CUSTOM_PM_HOME")
    admin("placement", "PUT", "/traits/CUSTOM_PM_HOME")
    return {
        "uuid": uuid,
        "rc": "VCPU",
        "name": "CUSTOM_PM_HOME",
        "consumer": new_uuid(),
        "project_id": home,
        "user_id": user,
    }


def agent(admin: Http) -> str:
    agents = admin("network", "GET", "/v2.0/agents")["agents"]
    return str(agents[0]["id"]) if agents else new_uuid()
