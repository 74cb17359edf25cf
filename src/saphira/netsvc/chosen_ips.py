"""Which addresses a port may be given by name, beyond "free and on the subnet".

Neutron's own IPAM lets anyone whom ``create_port:fixed_ips:ip_address``
admits take any host address of a subnet, the gateway included. Here two
rules hold whatever the policy says:

* a subnet's gateway address belongs to the network's router or DHCP port
  (``device_owner`` ``network:router_interface*``, ``network:router_gateway``,
  ``network:dhcp``) and to no other port, whoever asks, admins included: a
  guest holding it could answer ARP for every other guest on the network;
* an address outside the allocation pools is for admins and the network's
  owner only (the pools are what the owner lends to others).

Both refusals are Neutron's ``InvalidIpForSubnet`` (400).
"""

from __future__ import annotations

from collections.abc import Iterable

from saphira.db.network.models import Network, Port, Subnet
from saphira.netsvc import errors
from saphira.netsvc.addresses import Pool, parse_ip
from saphira.netsvc.caller import Caller
from saphira.netsvc.ipam import Wanted

GATEWAY_OWNERS = ("network:router_gateway", "network:dhcp")
ROUTER_INTERFACE = "network:router_interface"  # and its _distributed, ha_... variants


def may_hold_gateway(device_owner: str) -> bool:
    return device_owner in GATEWAY_OWNERS or device_owner.startswith(ROUTER_INTERFACE)


def may_leave_pools(caller: Caller, network: Network) -> bool:
    return caller.is_admin or (bool(caller.project_id) and caller.project_id == network.project_id)


def is_gateway(subnet: Subnet, ip: str) -> bool:
    return bool(subnet.gateway_ip) and parse_ip(subnet.gateway_ip, "gateway_ip") == parse_ip(
        ip, "fixed_ips"
    )


def in_pools(subnet: Subnet, ip: str) -> bool:
    address = parse_ip(ip, "fixed_ips")
    return any(
        address in Pool(parse_ip(p.first_ip, "pool"), parse_ip(p.last_ip, "pool"))
        for p in subnet.pools
    )


def check_wanted(wants: Iterable[Wanted], device_owner: str, leave_pools: bool) -> None:
    """The addresses a request names, for a port owned by ``device_owner``."""
    for want in wants:
        if want.ip is None:
            continue
        subnet = want.subnets[0]
        if is_gateway(subnet, want.ip) and not may_hold_gateway(device_owner):
            raise errors.InvalidIpForSubnet(ip_address=want.ip)
        if not leave_pools and not in_pools(subnet, want.ip):
            raise errors.InvalidIpForSubnet(ip_address=want.ip)


def check_held(port: Port, network: Network) -> None:
    """A port whose owner changes keeps no gateway address it may no longer hold."""
    if may_hold_gateway(port.device_owner or ""):
        return
    subnets = {subnet.id: subnet for subnet in network.subnets}
    for allocation in port.fixed_ips:
        subnet = subnets.get(allocation.subnet_id)
        if subnet is not None and is_gateway(subnet, allocation.ip_address):
            raise errors.InvalidIpForSubnet(ip_address=allocation.ip_address)
