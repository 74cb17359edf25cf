"""How to call each route: path parameters, query, body and microversion.

Path parameters come from the world the test made (``World.params[api]``,
named as the rules name them); a route whose parameter must be something
else (a resource it may delete, a private flavor...) says so here. Bodies
are minimal and valid, so an allowed caller passes and a refused one is
refused by policy, not by validation.
"""

from __future__ import annotations

import itertools
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.functional.policy.outcomes import Caller

_COUNTER = itertools.count(1)


@dataclass
class World:
    """What the module made: base URLs, tokens, and path parameters per API."""

    roots: dict[str, str]
    tokens: dict[Caller, str | None]
    params: dict[str, dict[str, str]]
    private: dict[str, str]  # home resources other projects must never see: label -> id
    projects: dict[Caller, str]  # each caller's project (the home one for no token)
    subject_token: Callable[[], str]  # a fresh token of the home member
    passwords: dict[str, str] = field(default_factory=dict)


Body = Callable[[World], Any]


@dataclass(frozen=True)
class Spec:
    params: dict[str, str] = field(default_factory=dict)  # param -> key in World.params
    query: str = ""
    body: Body | None = None
    version: str | None = None  # compute microversion; latest unless given
    headers: dict[str, str] = field(default_factory=dict)
    subject: bool = False  # X-Subject-Token: a fresh token of the home member
    last: bool = False  # runs after every other route (it revokes the member's tokens)
    # The target cannot be made in this cloud (no L2 agent binds a port to a
    # server): an allowed caller's 404 counts as passing authorization.
    absent: bool = False


def unique(prefix: str) -> str:
    return f"{prefix}{next(_COUNTER)}"


def _p(world: World, api: str, key: str) -> str:
    return world.params[api][key]


_PARAM = re.compile(r"<(?:[^:>]+:)?([a-z_]+)>")


def fill(rule: str, values: dict[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise KeyError(f"no value for <{name}> in {rule}")
        return values[name]

    return _PARAM.sub(one, rule)


_ASSIGN = "/v3/<any(projects, domains):kind>/<target_id>/users/<user_id>/roles"
_SYSTEM = "/v3/<any(system):kind>/users/<user_id>/roles"
_AS = {
    "kind": "kind_projects",
    "target_id": "project_id",
    "user_id": "victim_user",
    "role_id": "role_reader",
}
_SYS = {"kind": "kind_system", "user_id": "victim_user", "role_id": "role_reader"}

# fmt: off
IDENTITY: dict[tuple[str, str], Spec] = {
    ("POST", "/v3/auth/tokens"): Spec(body=lambda w: {"auth": {"identity": {
        "methods": ["password"], "password": {"user": {
            "id": w.params["identity"]["user_id"], "password": w.passwords["member"]}}}}}),
    ("GET", "/v3/auth/tokens"): Spec(subject=True),
    ("DELETE", "/v3/auth/tokens"): Spec(subject=True),
    ("POST", "/v3/domains"): Spec(body=lambda w: {"domain": {"name": unique("pm-domain-")}}),
    ("PATCH", "/v3/domains/<domain_id>"): Spec(
        params={"domain_id": "victim_domain"},
        body=lambda w: {"domain": {"description": unique("pm")}}),
    ("DELETE", "/v3/domains/<domain_id>"): Spec(params={"domain_id": "victim_domain"}),
    ("POST", "/v3/projects"): Spec(body=lambda w: {"project": {"name": unique("pm-project-")}}),
    ("PATCH", "/v3/projects/<project_id>"): Spec(
        body=lambda w: {"project": {"description": unique("pm")}}),
    ("DELETE", "/v3/projects/<project_id>"): Spec(params={"project_id": "victim_project"}),
    ("POST", "/v3/users"): Spec(body=lambda w: {"user": {"name": unique("pm-user-")}}),
    ("PATCH", "/v3/users/<user_id>"): Spec(
        body=lambda w: {"user": {"description": unique("pm")}}),
    ("DELETE", "/v3/users/<user_id>"): Spec(params={"user_id": "victim_user"}),
    ("POST", "/v3/users/<user_id>/password"): Spec(last=True, body=lambda w: {"user": {
        "original_password": w.passwords["member"], "password": w.passwords["member"]}}),
    ("POST", "/v3/roles"): Spec(body=lambda w: {"role": {"name": unique("pm-role-")}}),
    ("GET", "/v3/roles/<role_id>"): Spec(params={"role_id": "role_reader"}),
    ("PATCH", "/v3/roles/<role_id>"): Spec(
        params={"role_id": "victim_role"},
        body=lambda w: {"role": {"description": unique("pm")}}),
    ("DELETE", "/v3/roles/<role_id>"): Spec(params={"role_id": "victim_role"}),
    ("PUT", f"{_ASSIGN}/<role_id>"): Spec(params=_AS),
    ("GET", f"{_ASSIGN}/<role_id>"): Spec(params=_AS),
    ("DELETE", f"{_ASSIGN}/<role_id>"): Spec(params=_AS),
    ("GET", _ASSIGN): Spec(params=_AS),
    ("PUT", f"{_SYSTEM}/<role_id>"): Spec(params=_SYS),
    ("GET", f"{_SYSTEM}/<role_id>"): Spec(params=_SYS),
    ("DELETE", f"{_SYSTEM}/<role_id>"): Spec(params=_SYS),
    ("GET", _SYSTEM): Spec(params=_SYS),
    ("POST", "/v3/services"): Spec(body=lambda w: {"service": {"type": unique("pm-type-")}}),
    ("GET", "/v3/services/<ident>"): Spec(params={"ident": "victim_service"}),
    ("PATCH", "/v3/services/<ident>"): Spec(
        params={"ident": "victim_service"}, body=lambda w: {"service": {"name": "pm"}}),
    ("DELETE", "/v3/services/<ident>"): Spec(params={"ident": "victim_service"}),
    ("POST", "/v3/endpoints"): Spec(body=lambda w: {"endpoint": {
        "service_id": w.params["identity"]["victim_service"], "interface": "internal",
        "url": "http://127.0.0.1:1/pm"}}),
    ("GET", "/v3/endpoints/<ident>"): Spec(params={"ident": "victim_endpoint"}),
    ("PATCH", "/v3/endpoints/<ident>"): Spec(
        params={"ident": "victim_endpoint"},
        body=lambda w: {"endpoint": {"url": "http://127.0.0.1:2/pm"}}),
    ("DELETE", "/v3/endpoints/<ident>"): Spec(params={"ident": "victim_endpoint"}),
    ("POST", "/v3/regions"): Spec(body=lambda w: {"region": {"id": unique("pm-region-")}}),
    ("GET", "/v3/regions/<ident>"): Spec(params={"ident": "victim_region"}),
    ("PATCH", "/v3/regions/<ident>"): Spec(
        params={"ident": "victim_region"},
        body=lambda w: {"region": {"description": unique("pm")}}),
    ("DELETE", "/v3/regions/<ident>"): Spec(params={"ident": "victim_region"}),
    ("PUT", "/v3/regions/<region_id>"): Spec(
        params={"region_id": "new_region"},
        body=lambda w: {"region": {"description": unique("pm")}}),
}

_S = "/v2.1/servers/<server_id>"
_OWN_KEY = "?user_id={member_user}"
_PROXY = "2.35"
_META_PROXY = "2.38"  # the image metadata proxy's last
_IMG = "/v2.1/images/<image_id>"
_PROXY_IMAGE = {"image_id": "proxy_image_id"}
_EXTRA = {"key": "extra_key"}
COMPUTE: dict[tuple[str, str], Spec] = {
    ("POST", "/v2.1/flavors"): Spec(body=lambda w: {"flavor": {
        "name": unique("pm-flavor-"), "ram": 64, "vcpus": 1, "disk": 1}}),
    ("PUT", "/v2.1/flavors/<flavor_id>"): Spec(
        body=lambda w: {"flavor": {"description": unique("pm")}}),
    ("DELETE", "/v2.1/flavors/<flavor_id>"): Spec(params={"flavor_id": "victim_flavor"}),
    ("POST", "/v2.1/flavors/<flavor_id>/os-extra_specs"): Spec(
        body=lambda w: {"extra_specs": {"pm:key": "v"}}),
    ("GET", "/v2.1/flavors/<flavor_id>/os-extra_specs/<key>"): Spec(params=_EXTRA),
    ("PUT", "/v2.1/flavors/<flavor_id>/os-extra_specs/<key>"): Spec(
        params=_EXTRA, body=lambda w: {"pm:key": "v"}),
    ("DELETE", "/v2.1/flavors/<flavor_id>/os-extra_specs/<key>"): Spec(params=_EXTRA),
    ("GET", "/v2.1/flavors/<flavor_id>/os-flavor-access"): Spec(
        params={"flavor_id": "private_flavor"}),
    ("POST", "/v2.1/flavors/<flavor_id>/action"): Spec(
        params={"flavor_id": "private_flavor"},
        body=lambda w: {"addTenantAccess": {"tenant": w.params["compute"]["third_project"]}}),
    ("GET", "/v2.1/os-keypairs"): Spec(query=_OWN_KEY, version="2.10"),
    ("POST", "/v2.1/os-keypairs"): Spec(
        version="2.10", body=lambda w: {"keypair": {"name": unique("pm-key-")}}),
    ("GET", "/v2.1/os-keypairs/<keypair_name>"): Spec(query=_OWN_KEY, version="2.10"),
    ("DELETE", "/v2.1/os-keypairs/<keypair_name>"): Spec(query=_OWN_KEY, version="2.10"),
    ("PUT", "/v2.1/os-quota-sets/<tenant_id>"): Spec(
        body=lambda w: {"quota_set": {"key_pairs": 100}}),
    ("PUT", "/v2.1/os-quota-class-sets/<class_name>"): Spec(
        body=lambda w: {"quota_class_set": {"key_pairs": 100}}),
    ("POST", "/v2.1/os-server-groups"): Spec(body=lambda w: {"server_group": {
        "name": unique("pm-group-"), "policy": "affinity"}}),
    ("GET", "/v2.1/os-hypervisors/statistics"): Spec(version="2.87"),
    ("GET", "/v2.1/os-hypervisors/<hypervisor_id>/uptime"): Spec(version="2.87"),
    ("GET", "/v2.1/os-hypervisors/<pattern>/search"): Spec(version="2.52"),
    ("GET", "/v2.1/os-hypervisors/<pattern>/servers"): Spec(version="2.52"),
    ("PUT", "/v2.1/os-services/<service_id>"): Spec(body=lambda w: {"status": "enabled"}),
    ("POST", "/v2.1/servers"): Spec(body=lambda w: {"server": {
        "name": unique("pm-server-"), "flavorRef": w.params["compute"]["flavor_id"],
        "imageRef": w.params["compute"]["image_id"], "networks": "none"}}),
    ("PUT", _S): Spec(body=lambda w: {"server": {"name": unique("pm-server-")}}),
    ("POST", f"{_S}/action"): Spec(body=lambda w: {"os-getConsoleOutput": {"length": 1}}),
    ("POST", f"{_S}/remote-consoles"): Spec(
        body=lambda w: {"remote_console": {"protocol": "vnc", "type": "novnc"}}),
    # Any string is a token's shape; no console was opened, so the admin gets 404.
    ("GET", "/v2.1/os-console-auth-tokens/<token>"): Spec(
        params={"token": "server_id"}, version="2.31", absent=True),
    ("POST", f"{_S}/metadata"): Spec(body=lambda w: {"metadata": {"k1": unique("v")}}),
    ("PUT", f"{_S}/metadata"): Spec(body=lambda w: {"metadata": {"k1": unique("v")}}),
    ("PUT", f"{_S}/metadata/<key>"): Spec(body=lambda w: {"meta": {"k1": unique("v")}}),
    ("PUT", f"{_S}/tags"): Spec(body=lambda w: {"tags": ["t1", "t2"]}),
    ("GET", f"{_S}/os-interface/<port_id>"): Spec(absent=True),
    ("GET", f"{_S}/ips/<network>"): Spec(absent=True),
    # A port that does not exist: binding a real one needs an L2 agent.
    ("POST", f"{_S}/os-interface"): Spec(body=lambda w: {"interfaceAttachment": {
        "port_id": new_uuid()}}),
    ("POST", "/v2.1/os-server-external-events"): Spec(body=lambda w: {"events": [{
        "name": "network-changed", "server_uuid": w.params["compute"]["server_id"]}]}),
    ("GET", "/v2.1/os-networks"): Spec(version=_PROXY),
    ("POST", "/v2.1/os-networks"): Spec(version=_PROXY, body=lambda w: {"network": {"label": "x"}}),
    ("GET", "/v2.1/os-networks/<network_id>"): Spec(version=_PROXY),
    ("DELETE", "/v2.1/os-networks/<network_id>"): Spec(version=_PROXY),
    ("GET", "/v2.1/os-tenant-networks"): Spec(version=_PROXY),
    ("POST", "/v2.1/os-tenant-networks"): Spec(
        version=_PROXY, body=lambda w: {"network": {"label": "x", "cidr": "10.9.9.0/24"}}),
    ("GET", "/v2.1/os-tenant-networks/<network_id>"): Spec(version=_PROXY),
    ("DELETE", "/v2.1/os-tenant-networks/<network_id>"): Spec(version=_PROXY),
    ("POST", "/v2.1/os-networks/add"): Spec(version=_PROXY, body=lambda w: {"id": None}),
    ("POST", "/v2.1/os-networks/<network_id>/action"): Spec(
        version=_PROXY, body=lambda w: {"disassociate_host": None}),
    ("GET", "/v2.1/os-security-groups"): Spec(version=_PROXY),
    ("POST", "/v2.1/os-security-groups"): Spec(version=_PROXY, body=lambda w: {
        "security_group": {"name": unique("pm-sg-"), "description": unique("pm")}}),
    ("GET", "/v2.1/os-security-groups/<group_id>"): Spec(
        version=_PROXY, params={"group_id": "security_group_id"}),
    ("PUT", "/v2.1/os-security-groups/<group_id>"): Spec(
        version=_PROXY, params={"group_id": "security_group_id"},
        body=lambda w: {"security_group": {"name": "pm-proxy-sg", "description": unique("pm")}}),
    ("DELETE", "/v2.1/os-security-groups/<group_id>"): Spec(
        version=_PROXY, params={"group_id": "security_group_id"}),
    ("POST", "/v2.1/os-security-group-rules"): Spec(version=_PROXY, body=lambda w: {
        "security_group_rule": {"parent_group_id": w.params["compute"]["security_group_id"],
                                "ip_protocol": "tcp", "from_port": next(_COUNTER) + 1000,
                                "to_port": 2000, "cidr": "0.0.0.0/0"}}),
    ("DELETE", "/v2.1/os-security-group-rules/<rule_id>"): Spec(version=_PROXY),
    # The image proxy acts on a private image of its own (it deletes it); metadata
    # writes keep its k1, which the key routes read, update and finally delete.
    ("GET", "/v2.1/images"): Spec(version=_PROXY),
    ("GET", "/v2.1/images/detail"): Spec(version=_PROXY),
    ("GET", _IMG): Spec(version=_PROXY, params=_PROXY_IMAGE),
    ("DELETE", _IMG): Spec(version=_PROXY, params=_PROXY_IMAGE),
    ("DELETE", "/v2.1/images/"): Spec(version=_PROXY),
    ("GET", f"{_IMG}/metadata"): Spec(version=_META_PROXY, params=_PROXY_IMAGE),
    ("POST", f"{_IMG}/metadata"): Spec(version=_META_PROXY, params=_PROXY_IMAGE,
                                       body=lambda w: {"metadata": {"k2": unique("v")}}),
    ("PUT", f"{_IMG}/metadata"): Spec(version=_META_PROXY, params=_PROXY_IMAGE,
                                      body=lambda w: {"metadata": {"k1": unique("v")}}),
    ("GET", f"{_IMG}/metadata/<key>"): Spec(version=_META_PROXY, params=_PROXY_IMAGE),
    ("PUT", f"{_IMG}/metadata/<key>"): Spec(version=_META_PROXY, params=_PROXY_IMAGE,
                                            body=lambda w: {"meta": {"k1": unique("v")}}),
    ("DELETE", f"{_IMG}/metadata/<key>"): Spec(version=_META_PROXY, params=_PROXY_IMAGE),
}

_I = "/v2/images/<image_id>"
_PATCH = "application/openstack-images-v2.1-json-patch"
IMAGE: dict[tuple[str, str], Spec] = {
    ("POST", "/v2/images"): Spec(body=lambda w: {
        "name": unique("pm-image-"), "container_format": "bare", "disk_format": "raw"}),
    ("PATCH", _I): Spec(headers={"Content-Type": _PATCH}, body=lambda w: [
        {"op": "replace", "path": "/name", "value": unique("pm-image-")}]),
    ("PUT", f"{_I}/file"): Spec(headers={"Content-Type": "application/octet-stream"},
                                body=lambda w: b"\0" * 512),
    ("PUT", f"{_I}/stage"): Spec(headers={"Content-Type": "application/octet-stream"},
                                 body=lambda w: b"\0" * 512),
    ("POST", f"{_I}/import"): Spec(body=lambda w: {"method": {"name": "glance-direct"}}),
    ("POST", f"{_I}/members"): Spec(body=lambda w: {"member": w.params["image"]["member_id"]}),
    ("PUT", f"{_I}/members/<member_id>"): Spec(body=lambda w: {"status": "accepted"}),
}

NETWORK: dict[tuple[str, str], Spec] = {
    ("POST", "/v2.0/networks"): Spec(body=lambda w: {"network": {"name": unique("pm-net-")}}),
    ("PUT", "/v2.0/networks/<net_id>"): Spec(
        body=lambda w: {"network": {"description": unique("pm")}}),
    ("POST", "/v2.0/subnets"): Spec(body=lambda w: {"subnet": {
        "network_id": w.params["network"]["net_id"], "ip_version": 4,
        "cidr": f"10.78.{next(_COUNTER) % 250}.0/24"}}),
    ("PUT", "/v2.0/subnets/<subnet_id>"): Spec(
        body=lambda w: {"subnet": {"description": unique("pm")}}),
    ("POST", "/v2.0/ports"): Spec(body=lambda w: {"port": {
        "network_id": w.params["network"]["net_id"]}}),
    ("PUT", "/v2.0/ports/<port_id>"): Spec(body=lambda w: {"port": {"description": unique("pm")}}),
    ("POST", "/v2.0/security-groups"): Spec(body=lambda w: {"security_group": {
        "name": unique("pm-sg-")}}),
    ("PUT", "/v2.0/security-groups/<group_id>"): Spec(body=lambda w: {"security_group": {
        "description": unique("pm")}}),
    ("POST", "/v2.0/security-group-rules"): Spec(body=lambda w: {"security_group_rule": {
        "security_group_id": w.params["network"]["group_id"], "direction": "ingress",
        "protocol": "tcp", "port_range_min": next(_COUNTER) + 1000, "port_range_max": 3000}}),
    ("GET", "/v2.0/agents/<agent_id>"): Spec(absent=True),  # no agent runs here
    ("PUT", "/v2.0/agents/<agent_id>"): Spec(
        body=lambda w: {"agent": {"description": unique("pm")}}),
    ("PUT", "/v2.0/quotas/<project_id>"): Spec(body=lambda w: {"quota": {"network": 100}}),
}

_RP = "/resource_providers/<uuid>"
PLACEMENT: dict[tuple[str, str], Spec] = {
    ("POST", "/resource_providers"): Spec(body=lambda w: {"name": unique("pm-rp-")}),
    ("PUT", _RP): Spec(body=lambda w: {"name": "pm-rp"}),
    ("PUT", f"{_RP}/inventories"): Spec(body=lambda w: {
        "resource_provider_generation": 0, "inventories": {"VCPU": {"total": 8}}}),
    ("POST", f"{_RP}/inventories"): Spec(body=lambda w: {
        "resource_provider_generation": 0, "resource_class": "DISK_GB", "total": 8}),
    ("PUT", f"{_RP}/inventories/<rc>"): Spec(body=lambda w: {
        "resource_provider_generation": 0, "total": 8}),
    ("POST", "/resource_classes"): Spec(body=lambda w: {"name": unique("CUSTOM_PM_")}),
    ("PUT", f"{_RP}/traits"): Spec(body=lambda w: {
        "resource_provider_generation": 0, "traits": []}),
    ("PUT", f"{_RP}/aggregates"): Spec(body=lambda w: {
        "resource_provider_generation": 0, "aggregates": []}),
    ("POST", "/allocations"): Spec(body=lambda w: {}),
    ("PUT", "/allocations/<consumer>"): Spec(body=lambda w: {
        "allocations": {}, "project_id": w.params["placement"]["project_id"],
        "user_id": w.params["placement"]["user_id"], "consumer_generation": None}),
    ("GET", "/usages"): Spec(query="?project_id={project_id}"),
    ("GET", "/allocation_candidates"): Spec(query="?resources=VCPU:1"),
}
# fmt: on

SPECS: dict[str, dict[tuple[str, str], Spec]] = {
    "identity": IDENTITY,
    "compute": COMPUTE,
    "image": IMAGE,
    "network": NETWORK,
    "placement": PLACEMENT,
}


def new_uuid() -> str:
    return str(uuid.uuid4())
