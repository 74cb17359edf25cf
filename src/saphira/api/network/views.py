"""Networks, subnets and ports as Neutron shows them, and the attributes only some may read.

Views are built whole (filters and sorting see every attribute); ``public``
then drops what the caller's rules do not let them read (provider and
binding details are the admin's by default).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from saphira.db.network.models import Network, Port, Subnet
from saphira.netsvc.caller import Caller, target

View = dict[str, Any]

NETWORK_RULES = {
    "provider:network_type": "get_network:provider:network_type",
    "provider:physical_network": "get_network:provider:physical_network",
    "provider:segmentation_id": "get_network:provider:segmentation_id",
}
PORT_RULES = {
    "binding:host_id": "get_port:binding:host_id",
    "binding:vif_type": "get_port:binding:vif_type",
    "binding:vif_details": "get_port:binding:vif_details",
    "binding:profile": "get_port:binding:profile",
}


def timestamp(value: dt.datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def standard(row: Any) -> View:
    """What every resource of the standard-attr-* extensions carries."""
    return {
        "project_id": row.project_id,
        "tenant_id": row.project_id,
        "description": row.description,
        "created_at": timestamp(row.created_at),
        "updated_at": timestamp(row.updated_at),
        "revision_number": row.revision_number,
    }


def public(caller: Caller, view: View, rules: dict[str, str]) -> View:
    where = target(str(view.get("project_id") or ""))
    return {k: v for k, v in view.items() if k not in rules or caller.allowed(rules[k], where)}


def network_view(network: Network) -> View:
    segment = network.segment
    return {
        "id": network.id,
        "name": network.name,
        "status": network.status,
        "admin_state_up": network.admin_state_up,
        "shared": network.shared,
        "router:external": network.external,
        "mtu": network.mtu,
        "port_security_enabled": network.port_security_enabled,
        "subnets": [subnet.id for subnet in network.subnets],
        "provider:network_type": segment.network_type,
        "provider:physical_network": segment.physical_network,
        "provider:segmentation_id": (
            segment.segmentation_id if segment.network_type == "vlan" else None
        ),
        **standard(network),
    }


def subnet_view(subnet: Subnet) -> View:
    return {
        "id": subnet.id,
        "name": subnet.name,
        "network_id": subnet.network_id,
        "ip_version": subnet.ip_version,
        "cidr": subnet.cidr,
        "gateway_ip": subnet.gateway_ip,
        "allocation_pools": [{"start": p.first_ip, "end": p.last_ip} for p in subnet.pools],
        "dns_nameservers": [d.address for d in subnet.dns_nameservers],
        "host_routes": [
            {"destination": r.destination, "nexthop": r.nexthop} for r in subnet.host_routes
        ],
        "enable_dhcp": subnet.enable_dhcp,
        "ipv6_ra_mode": subnet.ipv6_ra_mode,
        "ipv6_address_mode": subnet.ipv6_address_mode,
        "subnetpool_id": None,
        **standard(subnet),
    }


def port_view(port: Port) -> View:
    return {
        "id": port.id,
        "name": port.name,
        "network_id": port.network_id,
        "mac_address": port.mac_address,
        "admin_state_up": port.admin_state_up,
        "status": port.status,
        "device_id": port.device_id,
        "device_owner": port.device_owner,
        "fixed_ips": [
            {"subnet_id": a.subnet_id, "ip_address": a.ip_address} for a in port.fixed_ips
        ],
        "allowed_address_pairs": [
            {"ip_address": p.ip_address, "mac_address": p.mac_address} for p in port.address_pairs
        ],
        "security_groups": [b.security_group_id for b in port.security_group_bindings],
        "port_security_enabled": port.port_security_enabled,
        "binding:host_id": port.binding_host_id,
        "binding:vif_type": port.binding_vif_type,
        "binding:vif_details": port.binding_vif_details,
        "binding:vnic_type": port.binding_vnic_type,
        "binding:profile": port.binding_profile,
        **standard(port),
    }
