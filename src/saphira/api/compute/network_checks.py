"""What a server create or an os-interface attach names of the network service,
checked at the API with the caller's own token before anything is claimed.

Nova's ``validate_networks`` at the API: a network, port or security group
resolves only within what the caller may see (the network service decides,
through the caller's token), so another project's is "not found"; a port in
use, a network without a subnet, someone's external network are refused in
Nova's words and with its statuses (server create answers a missing port or
network with 400, an attach with 404). A chosen fixed IP is also checked
against the rules the network service enforces whatever its policy says
(saphira.netsvc.chosen_ips): never a subnet's gateway, outside the allocation
pools only for the network's owner or an admin. The compute agent makes the
ports with the same token later, so every network policy applies there too;
these checks only make the common refusals an answer instead of a fault.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

from saphira.api.compute import network_proxy as proxy
from saphira.api.compute.app import Call
from saphira.clients.network import NetworkClient
from saphira.context import RequestContext
from saphira.exception import BadRequest, Conflict, Forbidden, NotFound, SaphiraError
from saphira.netsvc.addresses import Pool
from saphira.objects import Instance

DEFAULT_GROUP = "default"


@dataclass(frozen=True)
class Faults:
    """Nova's statuses for one API: "not found" (create 400, attach 404) and a
    fixed IP already in use (create 400, attach 409)."""

    missing: type[SaphiraError]
    ip_in_use: type[SaphiraError]


CREATE, ATTACH = Faults(BadRequest, BadRequest), Faults(NotFound, Conflict)


def check_create(call: Call, networks: Any, groups: list[str], max_count: int) -> None:
    """POST /servers: ``networks`` as given (a list, "auto", "none" or None)."""
    if not call.state.network_url:
        return  # no network service: servers get no NICs, groups are not applied
    client, context = proxy.client(call), call.context
    for name in groups:
        security_group(client, context, name)
    if not isinstance(networks, list):
        return
    if max_count > 1:
        _one_server_only(networks)
    for item in networks:
        if item.get("port"):
            port(client, str(item["port"]), context.project_id or "", None, CREATE)
            continue
        network = usable_network(client, str(item.get("uuid")), context, CREATE)
        if item.get("fixed_ip"):
            fixed_ip(client, network, str(item["fixed_ip"]), context, CREATE)


def _one_server_only(networks: list[dict[str, Any]]) -> None:
    """A port or an address can go to one server only (Nova's words)."""
    if any(item.get("port") for item in networks):
        raise BadRequest(
            "Failed to launch instances: Unable to launch multiple instances with a single "
            "configured port ID. Please launch your instance one by one with different ports."
        )
    if any(item.get("fixed_ip") for item in networks):
        raise BadRequest(
            "Failed to launch instances: max_count cannot be greater than 1 if an fixed_ip "
            "is specified."
        )


def check_attach(
    call: Call,
    instance: Instance,
    network_id: str | None,
    port_id: str | None,
    address: str | None,
) -> None:
    """POST /servers/{id}/os-interface, before the server's task state changes."""
    if not call.state.network_url:
        return  # the host answers that no network service is configured
    client = proxy.client(call)
    if port_id:
        port(client, port_id, instance.project_id, instance.uuid, ATTACH)
    if network_id:
        network = usable_network(client, network_id, call.context, ATTACH)
        if address:
            fixed_ip(client, network, address, call.context, ATTACH)


def security_group(client: NetworkClient, context: RequestContext, name: str) -> None:
    """A group of the caller's project, by name or id (Nova's validate_name)."""
    if name == DEFAULT_GROUP:
        return
    project = context.project_id or ""
    found = client.list_security_groups(project_id=project, name=name)
    if not found and proxy.is_uuid(name):
        found = client.list_security_groups(project_id=project, id=name)
    if not found:
        raise BadRequest(f"Security group {name} not found for project {project}.")
    if len(found) > 1:
        raise Conflict(
            f"Multiple security groups found matching '{name}'. Use an ID to be more specific."
        )


def port(
    client: NetworkClient, port_id: str, project: str, server: str | None, faults: Faults
) -> dict[str, Any]:
    """The caller's port, free (or already the server's), with an address."""
    try:
        found = client.show_port(port_id)
    except NotFound:
        raise faults.missing(f"Port id {port_id} could not be found.") from None
    if found.get("project_id") != project:
        if server is None:
            raise faults.missing(f"Port id {port_id} could not be found.")
        raise BadRequest(f"Port {port_id} not usable for instance {server}.")
    if found.get("device_id") not in ("", None, server):
        raise Conflict(f"Port {port_id} is still in use.")
    if not found.get("fixed_ips"):
        raise BadRequest(f"Port {port_id} requires a FixedIP in order to be used.")
    return found


def usable_network(
    client: NetworkClient, network_id: str, context: RequestContext, faults: Faults
) -> dict[str, Any]:
    """A network the caller sees that is its project's or shared, with a subnet."""
    missing = faults.missing(f"Network {network_id} could not be found.")
    try:
        network = client.show_network(network_id)
    except NotFound:
        raise missing from None
    if network.get("project_id") != context.project_id and not network.get("shared"):
        if network.get("router:external"):
            raise Forbidden(
                f"It is not allowed to create an interface on external network {network_id}"
            )
        raise missing
    if not network.get("subnets"):
        raise BadRequest(f"Network {network_id} requires a subnet in order to boot instances on.")
    return network


def fixed_ip(
    client: NetworkClient,
    network: dict[str, Any],
    address: str,
    context: RequestContext,
    faults: Faults,
) -> None:
    """Not a subnet's gateway; in an allocation pool unless the caller owns the
    network; not held by a port the caller sees."""
    ip = ipaddress.ip_address(address)
    held = client.list_ports(network_id=network["id"], fixed_ips=f"ip_address={address}")
    if held:
        raise faults.ip_in_use(f"Fixed IP address {address} is already in use on instance "
                               f"{held[0].get('device_id') or ''}.")  # fmt: skip
    owner = context.is_admin or network.get("project_id") == context.project_id
    for subnet in client.list_subnets(network_id=network["id"]):
        if ip not in ipaddress.ip_network(subnet["cidr"]):
            continue
        if subnet.get("gateway_ip") and ip == ipaddress.ip_address(subnet["gateway_ip"]):
            raise BadRequest(
                f"Fixed IP address {address} is the gateway of subnet {subnet['id']}: "
                "only the network's router or DHCP port may hold it."
            )
        if not owner and not _in_pools(ip, subnet.get("allocation_pools") or []):
            raise BadRequest(
                f"Fixed IP address {address} is outside the allocation pools of subnet "
                f"{subnet['id']}: only the network's owner or an admin may choose it."
            )


def _in_pools(ip: ipaddress.IPv4Address | ipaddress.IPv6Address, pools: list[Any]) -> bool:
    return any(
        ip in Pool(ipaddress.ip_address(pool["start"]), ipaddress.ip_address(pool["end"]))
        for pool in pools
    )
