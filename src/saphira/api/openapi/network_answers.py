"""What the network API answers on success for its shows and lists (Neutron's shapes):
the members Neutron always returns are required, with their types; an extension's may
come too."""

from __future__ import annotations

from typing import Any

from saphira.api.openapi.model import Schema, answer, listing, record, wrapped

_TEXT: Schema = {"type": "string"}
_MAYBE_TEXT: Schema = {"type": ["string", "null"]}
_MAYBE_PORT: Schema = {"type": ["integer", "null"], "minimum": 0, "maximum": 65535}
_FLAG: Schema = {"type": "boolean"}
_IDS: Schema = {"type": "array", "items": _TEXT}
_OWNED = {"id": _TEXT, "tenant_id": _TEXT, "project_id": _TEXT}
NETWORK = record(
    ["id", "name", "status", "admin_state_up", "subnets", "shared", "tenant_id", "project_id"],
    {**_OWNED, "name": _TEXT, "status": _TEXT, "admin_state_up": _FLAG, "subnets": _IDS,
     "shared": _FLAG, "mtu": {"type": "integer"}, "router:external": _FLAG},
)  # fmt: skip
_POOL = record(["start", "end"], {"start": _TEXT, "end": _TEXT})
SUBNET = record(
    ["id", "name", "network_id", "cidr", "ip_version", "gateway_ip", "enable_dhcp",
     "allocation_pools", "dns_nameservers", "host_routes", "tenant_id", "project_id"],
    {**_OWNED, "name": _TEXT, "network_id": _TEXT, "cidr": _TEXT, "ip_version": {"enum": [4, 6]},
     "gateway_ip": _MAYBE_TEXT, "enable_dhcp": _FLAG,
     "allocation_pools": {"type": "array", "items": _POOL}, "dns_nameservers": _IDS,
     "host_routes": {"type": "array", "items": record(["destination", "nexthop"])}},
)  # fmt: skip
_FIXED_IP = record(["subnet_id", "ip_address"], {"subnet_id": _TEXT, "ip_address": _TEXT})
PORT = record(
    ["id", "name", "network_id", "mac_address", "fixed_ips", "device_id", "device_owner",
     "status", "admin_state_up", "tenant_id", "project_id"],
    {**_OWNED, "name": _TEXT, "network_id": _TEXT, "mac_address": _TEXT,
     "fixed_ips": {"type": "array", "items": _FIXED_IP}, "device_id": _TEXT,
     "device_owner": _TEXT, "status": _TEXT, "admin_state_up": _FLAG, "security_groups": _IDS,
     "binding:host_id": _TEXT, "binding:vif_type": _TEXT},
)  # fmt: skip
RULE = record(
    ["id", "security_group_id", "direction", "ethertype", "protocol", "port_range_min",
     "port_range_max", "remote_ip_prefix", "remote_group_id", "tenant_id", "project_id"],
    {**_OWNED, "security_group_id": _TEXT, "direction": {"enum": ["ingress", "egress"]},
     "ethertype": {"enum": ["IPv4", "IPv6"]}, "protocol": _MAYBE_TEXT,
     "port_range_min": _MAYBE_PORT, "port_range_max": _MAYBE_PORT,
     "remote_ip_prefix": _MAYBE_TEXT, "remote_group_id": _MAYBE_TEXT},
)  # fmt: skip
GROUP = record(
    ["id", "name", "description", "security_group_rules", "tenant_id", "project_id"],
    {**_OWNED, "name": _TEXT, "description": _TEXT,
     "security_group_rules": {"type": "array", "items": RULE}},
)  # fmt: skip


def _both(plural: str, singular: str, param: str, item: Schema) -> dict[tuple[str, str], Any]:
    path = f"/v2.0/{plural}"
    return {
        ("GET", path): {"200": answer(listing(plural.replace("-", "_"), item))},
        ("GET", f"{path}/<{param}>"): {"200": answer(wrapped(singular, item))},
    }


ANSWERS: dict[tuple[str, str], dict[str, Any]] = {
    **_both("networks", "network", "net_id", NETWORK),
    **_both("subnets", "subnet", "subnet_id", SUBNET),
    **_both("ports", "port", "port_id", PORT),
    **_both("security-groups", "security_group", "group_id", GROUP),
    **_both("security-group-rules", "security_group_rule", "rule_id", RULE),
}
