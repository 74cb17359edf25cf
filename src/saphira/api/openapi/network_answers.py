"""What the network API answers on success (Neutron's shapes): the members Neutron always
returns (and Saphira too) are required, with their types; an extension's may come too."""

from __future__ import annotations

from typing import Any

from saphira.api.openapi.model import (
    COUNT,
    FLAG,
    INTEGER,
    LINKS,
    MAYBE_TEXT,
    TEXT,
    TEXTS,
    Schema,
    created,
    list_and_show,
    listing,
    ok,
    record,
    wrapped,
)
from saphira.netsvc.settings import QUOTA_RESOURCES

_MAYBE_PORT: Schema = {"type": ["integer", "null"], "minimum": 0, "maximum": 65535}
_OWNED = {"id": TEXT, "tenant_id": TEXT, "project_id": TEXT}
NETWORK = record(
    ["id", "name", "status", "admin_state_up", "subnets", "shared", "tenant_id", "project_id"],
    {**_OWNED, "name": TEXT, "status": TEXT, "admin_state_up": FLAG, "subnets": TEXTS,
     "shared": FLAG, "mtu": INTEGER, "router:external": FLAG},
)  # fmt: skip
_POOL = record(["start", "end"], {"start": TEXT, "end": TEXT})
SUBNET = record(
    ["id", "name", "network_id", "cidr", "ip_version", "gateway_ip", "enable_dhcp",
     "allocation_pools", "dns_nameservers", "host_routes", "tenant_id", "project_id"],
    {**_OWNED, "name": TEXT, "network_id": TEXT, "cidr": TEXT, "ip_version": {"enum": [4, 6]},
     "gateway_ip": MAYBE_TEXT, "enable_dhcp": FLAG,
     "allocation_pools": {"type": "array", "items": _POOL}, "dns_nameservers": TEXTS,
     "host_routes": {"type": "array", "items": record(["destination", "nexthop"])}},
)  # fmt: skip
_FIXED_IP = record(["subnet_id", "ip_address"], {"subnet_id": TEXT, "ip_address": TEXT})
PORT = record(
    ["id", "name", "network_id", "mac_address", "fixed_ips", "device_id", "device_owner",
     "status", "admin_state_up", "tenant_id", "project_id"],
    {**_OWNED, "name": TEXT, "network_id": TEXT, "mac_address": TEXT,
     "fixed_ips": {"type": "array", "items": _FIXED_IP}, "device_id": TEXT,
     "device_owner": TEXT, "status": TEXT, "admin_state_up": FLAG, "security_groups": TEXTS,
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

_AGENT = record(
    ["id", "agent_type", "binary", "topic", "host", "admin_state_up", "alive",
     "configurations", "description", "created_at", "started_at", "heartbeat_timestamp"],
    {"id": TEXT, "agent_type": TEXT, "binary": TEXT, "topic": TEXT, "host": TEXT,
     "admin_state_up": FLAG, "alive": FLAG, "configurations": {"type": "object"},
     "description": MAYBE_TEXT, "created_at": TEXT, "started_at": TEXT,
     "heartbeat_timestamp": TEXT, "availability_zone": MAYBE_TEXT},
)  # fmt: skip
_EXTENSION = record(
    ["alias", "name", "description", "updated", "links"],
    {"alias": TEXT, "name": TEXT, "description": TEXT, "updated": TEXT, "links": LINKS},
)
_COLLECTION = record(["name", "collection", "links"],
                     {"name": TEXT, "collection": TEXT, "links": LINKS})  # fmt: skip

# Quotas: the resources Saphira counts (Neutron has more, from its other plugins).
_LIMIT = INTEGER  # -1: unlimited
_LIMITS = record(list(QUOTA_RESOURCES), dict.fromkeys(QUOTA_RESOURCES, _LIMIT))
_OWNED_LIMITS = record(
    [*QUOTA_RESOURCES, "project_id", "tenant_id"],
    {**_LIMITS["properties"], "project_id": TEXT, "tenant_id": TEXT},
)
_USAGE = record(["limit", "used", "reserved"], {"limit": _LIMIT, "used": COUNT,
                "reserved": COUNT})  # fmt: skip
_DETAILS = record(list(QUOTA_RESOURCES), dict.fromkeys(QUOTA_RESOURCES, _USAGE))


def _resource(
    path: str, param: str, keys: tuple[str, str], item: Schema, *, updated: bool = True
) -> dict[tuple[str, str], dict[str, Any]]:
    """List, show, create (one, or a bulk create's ``{plural: [...]}``) and update."""
    plural, singular = keys
    one = wrapped(singular, item)
    made = {"anyOf": [one, listing(plural, item)]}
    answers = {
        **list_and_show(path, param, keys, item),
        ("POST", path): created(made),
    }
    if updated:
        answers[("PUT", f"{path}/<{param}>")] = ok(one)
    return answers


def _quotas(path: str) -> dict[tuple[str, str], dict[str, Any]]:
    one = f"{path}/<project_id>"
    shown = ok(wrapped("quota", _LIMITS))
    details = ok(wrapped("quota", _DETAILS))
    return {
        ("GET", path): ok(listing("quotas", _OWNED_LIMITS)),
        ("GET", one): shown,
        ("PUT", one): shown,
        ("GET", f"{one}/default"): shown,
        ("GET", f"{one}/details"): details,
        ("GET", f"{one}/details.json"): details,
    }


_V2 = "/v2.0"
ANSWERS: dict[tuple[str, str], dict[str, Any]] = {
    ("GET", _V2): ok(listing("resources", _COLLECTION)),
    **list_and_show(f"{_V2}/extensions", "path:alias", ("extensions", "extension"), _EXTENSION),
    **_resource(f"{_V2}/networks", "net_id", ("networks", "network"), NETWORK),
    **_resource(f"{_V2}/subnets", "subnet_id", ("subnets", "subnet"), SUBNET),
    **_resource(f"{_V2}/ports", "port_id", ("ports", "port"), PORT),
    **_resource(f"{_V2}/security-groups", "group_id",
                ("security_groups", "security_group"), GROUP),
    **_resource(f"{_V2}/security-group-rules", "rule_id",
                ("security_group_rules", "security_group_rule"), RULE, updated=False),
    **list_and_show(f"{_V2}/agents", "agent_id", ("agents", "agent"), _AGENT),
    ("PUT", f"{_V2}/agents/<agent_id>"): ok(wrapped("agent", _AGENT)),
    **_quotas(f"{_V2}/quotas"),
}  # fmt: skip
