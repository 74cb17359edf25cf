"""The home project, the other projects and the seven callers, made once per module.

Everything is made through the public APIs (admin for what only admins may
make, the home member for the rest).
"""

from __future__ import annotations

import requests
import yaml

from tests.functional.clients import expired_token
from tests.functional.cloud import Cloud
from tests.functional.policy import home as made
from tests.functional.policy.calls import TIMEOUT, Http, password_token, roots
from tests.functional.policy.outcomes import Caller
from tests.functional.policy.requests_spec import World

PASSWORD = "policy-matrix-secret"


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
    params["new_region"] = "pm-put-region"  # PUT makes a region of this id
    params["victim_region"] = http(
        "identity", "POST", "/v3/regions", {"region": {"id": "pm-victim"}}
    )["region"]["id"]


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
    image = made.image(member, third)
    net = made.network(member, "pm-home-net", "10.77.0.0/24")
    compute = made.compute(admin, member, image, net, third)
    compute.update(tenant_id=home, member_user=member_id)
    compute["proxy_image_id"] = made.proxy_image(member)
    network = {**net, "agent_id": made.agent(admin), "alias": "security-group", "project_id": home}
    own_net = made.network(member, "pm-net2", "10.76.0.0/24")
    network.update({k: v for k, v in own_net.items() if k != "name"})
    private = {
        "server": compute["server_id"],
        "server group": compute["group_id"],
        "keypair": compute["keypair_name"],
        "image": image,
        "image (the compute proxy's)": compute["proxy_image_id"],
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
            "placement": made.placement(admin, home, member_id),
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
