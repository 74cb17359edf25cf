"""What the network API answers on success for its shows and lists (Neutron's shapes):
the members Neutron always returns are required, with their types; an extension's may
come too."""

from __future__ import annotations

from typing import Any

from saphira.api.openapi.model import FLAG, MAYBE_TEXT, TEXT, Schema, list_and_show, record

_MAYBE_PORT: Schema = {"type": ["integer", "null"], "minimum": 0, "maximum": 65535}
_IDS: Schema = {"type": "array", "items": TEXT}
_OWNED = {"id": TEXT, "tenant_id": TEXT, "project_id": TEXT}
NETWORK = record(
    ["id", "name", "status", "admin_state_up", "subnets", "shared", "tenant_id", "project_id"],
    {**_OWNED, "name": TEXT, "status": TEXT, "admin_state_up": FLAG, "subnets": _IDS,
     "shared": FLAG, "mtu": {"type": "integer"}, "router:external": FLAG},
)  # fmt: skip
_POOL = record(["start", "end"], {"start": TEXT, "end": TEXT})
SUBNET = record(
    ["id", "name", "network_id", "cidr", "ip_version", "gateway_ip", "enable_dhcp",
     "allocation_pools", "dns_nameservers", "host_routes", "tenant_id", "project_id"],
    {**_OWNED, "name": TEXT, "network_id": TEXT, "cidr": TEXT, "ip_version": {"enum": [4, 6]},
     "gateway_ip": MAYBE_TEXT, "enable_dhcp": FLAG,
     "allocation_pools": {"type": "array", "items": _POOL}, "dns_nameservers": _IDS,
     "host_routes": {"type": "array", "items": record(["destination", "nexthop"])}},
)  # fmt: skip
_FIXED_IP = record(["subnet_id", "ip_address"], {"subnet_id": TEXT, "ip_address": TEXT})
PORT = record(
    ["id", "name", "network_id", "mac_address", "fixed_ips", "device_id", "device_owner",
     "status", "admin_state_up", "tenant_id", "project_id"],
    {**_OWNED, "name": TEXT, "network_id": TEXT, "mac_address": TEXT,
     "fixed_ips": {"type": "array", "items": _FIXED_IP}, "device_id": TEXT,
     "device_owner": TEXT, "status": TEXT, "admin_state_up": FLAG, "security_groups": _IDS,
     "binding:host_id": TEXT, "binding:vif_type": TEXT},
)  # fmt: skip
RULE = record(
    ["id", "security_group_id", "direction", "ethertype", "protocol", "port_range_min",
     "port_range_max", "remote_ip_prefix", "remote_group_id", "tenant_id", "project_id"],
    {**_OWNED, "security_group_id": TEXT, "direction": {"enum": ["ingress", "egress"]},
     "ethertype": {"enum": ["IPv4", "IPv6"]}, "protocol": MAYBE_TEXT,
     "port_range_min": _MAYBE_PORT, "port_range_max": _MAYBE_PORT,
     "remote_ip_prefix": MAYBE_TEXT, "remote_group_id": MAYBE_TEXT},
)  # fmt: skip
GROUP = record(
    ["id", "name", "description", "security_group_rules", "tenant_id", "project_id"],
    {**_OWNED, "name": TEXT, "description": TEXT,
     "security_group_rules": {"type": "array", "items": RULE}},
)  # fmt: skip


ANSWERS: dict[tuple[str, str], dict[str, Any]] = {
    **list_and_show("/v2.0/networks", "net_id", ("networks", "network"), NETWORK),
    **list_and_show("/v2.0/subnets", "subnet_id", ("subnets", "subnet"), SUBNET),
    **list_and_show("/v2.0/ports", "port_id", ("ports", "port"), PORT),
    **list_and_show("/v2.0/security-groups", "group_id",
                    ("security_groups", "security_group"), GROUP),
    **list_and_show("/v2.0/security-group-rules", "rule_id",
                    ("security_group_rules", "security_group_rule"), RULE),
}  # fmt: skip
