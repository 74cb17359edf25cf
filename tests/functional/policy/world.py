"""The home project and its resources, the other projects and the seven callers.

Everything is made through the public APIs (admin for what only admins may
make, the home member for the rest), once per module.
"""

from __future__ import annotations

import time
from typing import Any

import requests
import yaml

from saphira.service import registry
from tests.functional.clients import expired_token
from tests.functional.cloud import Cloud
from tests.functional.policy.outcomes import Caller
from tests.functional.policy.requests_spec import World, new_uuid

TIMEOUT = 60
PASSWORD = "policy-matrix-secret"


class Http:
    """Raw JSON calls with one token, failing loudly when a set-up step fails."""

    def __init__(self, roots: dict[str, str], token: str) -> None:
        self.roots, self.token = roots, token

    def __call__(
        self,
        api: str,
        method: str,
        path: str,
        body: Any = None,
        expect: tuple[int, ...] = (200, 201, 202, 204),
        version: str | None = None,
    ) -> Any:
        sent = {"X-Auth-Token": self.token, "OpenStack-API-Version": version or _version(api)}
        response = requests.request(
            method, self.roots[api] + path, json=body, headers=sent, timeout=TIMEOUT
        )
        assert response.status_code in expect, (
            f"{method} {path}: {response.status_code} {response.text}"
        )
        return (
            response.json()
            if response.content and "json" in response.headers.get("Content-Type", "")
            else None
        )


def _version(api: str) -> str:
    return {"compute": "compute 2.64", "placement": "placement latest"}.get(api, "")


def roots(cloud: Cloud) -> dict[str, str]:
    result = {}
    for api in ("identity", "compute", "image", "network", "placement"):
        spec = registry.by_type(api)
        result[api] = f"http://127.0.0.1:{spec.default_port + cloud.port_offset}"
    return result


def password_token(
    root: str, user_id: str, password: str, project_id: str
) -> tuple[str, dict[str, Any]]:
    body = {
        "auth": {
            "identity": {
                "methods": ["password"],
                "password": {"user": {"id": user_id, "password": password}},
            },
            "scope": {"project": {"id": project_id}},
        }
    }
    response = requests.post(f"{root}/v3/auth/tokens", json=body, timeout=TIMEOUT)
    assert response.status_code == 201, response.text
    return response.headers["X-Subject-Token"], response.json()["token"]


def _admin_token(cloud: Cloud, identity: str) -> tuple[str, str]:
    auth = yaml.safe_load(cloud.clouds_yaml.read_text())["clouds"]["admin"]["auth"]
    body = {
        "auth": {
            "identity": {
                "methods": ["password"],
                "password": {
                    "user": {
                        "name": auth["username"],
                        "domain": {"id": "default"},
                        "password": auth["password"],
                    }
                },
            },
            "scope": {"project": {"name": auth["project_name"], "domain": {"id": "default"}}},
        }
    }
    response = requests.post(f"{identity}/v3/auth/tokens", json=body, timeout=TIMEOUT)
    assert response.status_code == 201, response.text
    return response.headers["X-Subject-Token"], response.json()["token"]["project"]["id"]


class Identity:
    def __init__(self, http: Http) -> None:
        self.http = http
        roles = http("identity", "GET", "/v3/roles")["roles"]
        self.roles = {role["name"]: role["id"] for role in roles}

    def project(self, name: str) -> str:
        return str(
            self.http("identity", "POST", "/v3/projects", {"project": {"name": name}})["project"][
                "id"
            ]
        )

    def user(self, name: str, project: str, role: str) -> str:
        user = self.http(
            "identity",
            "POST",
            "/v3/users",
            {"user": {"name": name, "password": PASSWORD, "default_project_id": project}},
        )["user"]
        self.http(
            "identity", "PUT", f"/v3/projects/{project}/users/{user['id']}/roles/{self.roles[role]}"
        )
        return str(user["id"])


def _identity_victims(http: Http, params: dict[str, str]) -> None:
    params["victim_domain"] = http(
        "identity", "POST", "/v3/domains", {"domain": {"name": "pm-victim", "enabled": False}}
    )["domain"]["id"]
    params["victim_role"] = http("identity", "POST", "/v3/roles", {"role": {"name": "pm-victim"}})[
        "role"
    ]["id"]
    service = http("identity", "POST", "/v3/services", {"service": {"type": "pm-victim"}})[
        "service"
    ]
    params["victim_service"] = service["id"]
    params["victim_endpoint"] = http(
        "identity",
        "POST",
        "/v3/endpoints",
        {
            "endpoint": {
                "service_id": service["id"],
                "interface": "public",
                "url": "http://127.0.0.1:1/",
            }
        },
    )["endpoint"]["id"]
    params["victim_region"] = http(
        "identity", "POST", "/v3/regions", {"region": {"id": "pm-victim"}}
    )["region"]["id"]


def _wait_active(http: Http, server_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while True:
        server: dict[str, Any] = http("compute", "GET", f"/v2.1/servers/{server_id}")["server"]
        if server["status"] in ("ACTIVE", "ERROR") or time.monotonic() > deadline:
            assert server["status"] == "ACTIVE", server
            return server
        time.sleep(0.5)


def _image(member: Http, third: str) -> str:
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


def _network(member: Http, name: str, cidr: str) -> dict[str, str]:
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


def _compute(
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
    _wait_active(member, server)
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


def _placement(admin: Http, home: str, user: str) -> dict[str, str]:
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


def _agent(admin: Http) -> str:
    agents = admin("network", "GET", "/v2.0/agents")["agents"]
    return str(agents[0]["id"]) if agents else new_uuid()


def build(cloud: Cloud) -> World:
    urls = roots(cloud)
    admin_token, admin_project = _admin_token(cloud, urls["identity"])
    admin = Http(urls, admin_token)
    ident = Identity(admin)
    home, other, third = (ident.project(f"pm-{name}") for name in ("home", "other", "third"))
    users = {
        Caller.MEMBER: (ident.user("pm-member", home, "member"), home),
        Caller.READER: (ident.user("pm-reader", home, "reader"), home),
        Caller.OTHER_MEMBER: (ident.user("pm-other-member", other, "member"), other),
        Caller.OTHER_READER: (ident.user("pm-other-reader", other, "reader"), other),
    }
    tokens: dict[Caller, str | None] = {Caller.ADMIN: admin.token, Caller.ANONYMOUS: None}
    for caller, (user_id, project) in users.items():
        tokens[caller] = password_token(urls["identity"], user_id, PASSWORD, project)[0]
    member_id = users[Caller.MEMBER][0]
    tokens[Caller.EXPIRED] = expired_token(cloud.state_dir, member_id, home)
    member = Http(urls, str(tokens[Caller.MEMBER]))
    victim_user = ident.user("pm-victim", home, "reader")
    identity = {
        "project_id": home,
        "user_id": member_id,
        "domain_id": "default",
        "victim_user": victim_user,
        "role_reader": ident.roles["reader"],
        "victim_project": ident.project("pm-victim"),
        "kind_projects": "projects",
        "kind_system": "system",
    }
    _identity_victims(admin, identity)
    admin("identity", "PUT", f"/v3/system/users/{victim_user}/roles/{ident.roles['reader']}")
    image = _image(member, third)
    net = _network(member, "pm-home-net", "10.77.0.0/24")
    compute = _compute(admin, member, image, net, third)
    compute.update(tenant_id=home, member_user=member_id)
    network = {**net, "agent_id": _agent(admin), "alias": "security-group", "project_id": home}
    own_net = _network(member, "pm-net2", "10.76.0.0/24")
    network.update({k: v for k, v in own_net.items() if k != "name"})
    private = {
        "server": compute["server_id"],
        "server group": compute["group_id"],
        "keypair": compute["keypair_name"],
        "image": image,
        "network": net["net_id"],
        "subnet": net["subnet_id"],
        "port": net["port_id"],
        "security group": net["group_id"],
        "security group rule": net["rule_id"],
        "network (2)": own_net["net_id"],
    }
    return World(
        roots=urls,
        tokens=tokens,
        params={
            "identity": identity,
            "compute": compute,
            "network": network,
            "image": {"image_id": image, "member_id": third, "tag": "t1"},
            "placement": _placement(admin, home, member_id),
        },
        private=private,
        projects={
            Caller.ADMIN: admin_project,
            Caller.ANONYMOUS: home,
            Caller.EXPIRED: home,
            **{caller: project for caller, (_, project) in users.items()},
        },
        subject_token=lambda: password_token(urls["identity"], member_id, PASSWORD, home)[0],
        passwords={"member": PASSWORD},
    )
