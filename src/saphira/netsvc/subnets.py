"""Subnets: CIDR, gateway, pools, DNS servers and routes checked as Neutron checks them.

Subnets of one network must not overlap; the check runs with the network row
locked (SELECT ... FOR UPDATE where the database has it; SQLite writers take
turns anyway), so two overlapping creates cannot both pass it.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.network.models import AllocationPool, IPAllocation, Network, Port, Subnet
from saphira.netsvc import access, errors, quotas
from saphira.netsvc.addresses import Net, Pool, check_pools, default_pools, parse_cidr, parse_ip
from saphira.netsvc.caller import Caller, target
from saphira.netsvc.chosen_ips import may_hold_gateway
from saphira.netsvc.ipam import is_auto
from saphira.netsvc.networks import DHCP_OWNER
from saphira.netsvc.settings import Settings
from saphira.netsvc.stamps import bumped, created, new_id
from saphira.netsvc.subnet_options import check_modes, dns_rows, gateway_of, route_rows

UNSET = object()


def _locked_network(session: Session, caller: Caller, net_id: str) -> Network:
    network = access.network(session, caller, net_id)
    session.execute(sa.select(Network.id).where(Network.id == net_id).with_for_update())
    return network


def _check_overlap(session: Session, network: Network, net: Net) -> None:
    for other in session.scalars(sa.select(Subnet).where(Subnet.network_id == network.id)):
        if parse_cidr(other.cidr).overlaps(net):
            raise errors.InvalidInput(
                error_message=f"Requested subnet with cidr: {net} for network: {network.id} "
                "overlaps with another subnet"
            )


def _pools(net: Net, attrs: dict[str, Any], gateway: Any) -> list[Pool]:
    given = attrs.get("allocation_pools")
    if given is None:
        return default_pools(net, gateway)
    pools = [
        Pool(
            parse_ip(p.get("start"), "allocation_pools"), parse_ip(p.get("end"), "allocation_pools")
        )
        for p in given
    ]
    check_pools(net, pools, gateway)
    return pools


def _pool_rows(pools: list[Pool]) -> list[AllocationPool]:
    return [
        AllocationPool(position=i, first_ip=str(p.first), last_ip=str(p.last))
        for i, p in enumerate(pools)
    ]


def create(session: Session, caller: Caller, settings: Settings, attrs: dict[str, Any]) -> Subnet:
    network = _locked_network(session, caller, str(attrs["network_id"]))
    project = caller.owner_for(attrs.get("project_id"))
    caller.authorize("create_subnet", target(project, network))
    version = attrs["ip_version"]
    net = parse_cidr(str(attrs.get("cidr")))
    if net.version != version:
        raise errors.InvalidInput(
            error_message=f"cidr '{net}' does not match the ip_version '{version}'"
        )
    check_modes(net, attrs)
    if version == 6 and network.mtu < 1280:
        raise errors.InvalidInput(
            error_message="IPv6 protocol requires a minimum MTU of 1280, while the network "
            f"MTU is {network.mtu}"
        )
    gateway = gateway_of(net, attrs.get("gateway_ip", UNSET), UNSET)
    pools = _pools(net, attrs, gateway)
    _check_overlap(session, network, net)
    quotas.check(session, settings, project, "subnet")
    subnet = Subnet(
        id=new_id(), project_id=project, network_id=network.id, name=attrs.get("name", ""),
        ip_version=version, cidr=str(net), gateway_ip=str(gateway) if gateway else None,
        enable_dhcp=attrs.get("enable_dhcp", True),
        ipv6_ra_mode=attrs.get("ipv6_ra_mode"), ipv6_address_mode=attrs.get("ipv6_address_mode"),
        pools=_pool_rows(pools),
        dns_nameservers=dns_rows(net, attrs.get("dns_nameservers") or []),
        host_routes=route_rows(net, attrs.get("host_routes") or []),
    )  # fmt: skip
    created(subnet, attrs.get("description", ""))
    network.subnets.append(subnet)  # the network's list stays whole for this transaction
    bumped(network)
    return subnet


def _repool(subnet: Subnet, net: Net, asked: list[dict[str, Any]] | None) -> None:
    """Check the (new or kept) pools against the (new or kept) gateway, and store them."""
    kept = [{"start": p.first_ip, "end": p.last_ip} for p in subnet.pools]
    gateway = parse_ip(subnet.gateway_ip, "gateway_ip") if subnet.gateway_ip else None
    pools = _pools(net, {"allocation_pools": kept if asked is None else asked}, gateway)
    subnet.pools = _pool_rows(pools)


def _check_gateway_free(session: Session, subnet: Subnet) -> None:
    """A new gateway address held by a port that may not hold it is Neutron's 409."""
    if not subnet.gateway_ip:
        return
    holders = session.execute(
        sa.select(Port.id, Port.device_owner)
        .join(IPAllocation, IPAllocation.port_id == Port.id)
        .where(IPAllocation.subnet_id == subnet.id, IPAllocation.ip_address == subnet.gateway_ip)
    ).all()
    for port_id, owner in holders:
        if not may_hold_gateway(owner or ""):
            raise errors.GatewayIpInUse(ip_address=subnet.gateway_ip, port_id=port_id)


def update(session: Session, caller: Caller, subnet_id: str, attrs: dict[str, Any]) -> Subnet:
    subnet = access.subnet(session, caller, subnet_id)
    network = access.network_of(session, subnet.network_id)
    caller.authorize("update_subnet", target(subnet.project_id, network))
    net = parse_cidr(subnet.cidr)
    if "gateway_ip" in attrs:
        gateway = gateway_of(net, attrs["gateway_ip"], UNSET)
        subnet.gateway_ip = str(gateway) if gateway else None
        _check_gateway_free(session, subnet)
    if "gateway_ip" in attrs or "allocation_pools" in attrs:
        _repool(subnet, net, attrs.get("allocation_pools"))
    if "dns_nameservers" in attrs:
        subnet.dns_nameservers = dns_rows(net, attrs["dns_nameservers"] or [])
    if "host_routes" in attrs:
        subnet.host_routes = route_rows(net, attrs["host_routes"] or [])
    for key in ("name", "description", "enable_dhcp"):
        if key in attrs:
            setattr(subnet, key, attrs[key])
    bumped(subnet)
    return subnet


def delete(session: Session, caller: Caller, subnet_id: str) -> None:
    """Only DHCP ports may still hold addresses of the subnet; theirs are released.

    Addresses a port got by itself (SLAAC, DHCPv6-stateless) hold nothing up:
    as in Neutron, they are taken off every port and the subnet goes.
    """
    subnet = access.subnet(session, caller, subnet_id)
    network = access.network_of(session, subnet.network_id)
    caller.authorize("delete_subnet", target(subnet.project_id, network))
    holders = session.execute(
        sa.select(IPAllocation, Port.device_owner)
        .join(Port, Port.id == IPAllocation.port_id)
        .where(IPAllocation.subnet_id == subnet.id)
    ).all()
    if not is_auto(subnet) and any(owner != DHCP_OWNER for _, owner in holders):
        raise errors.SubnetInUse(subnet_id=subnet.id)
    for allocation, _ in holders:
        session.delete(allocation)
    session.flush()
    network.subnets.remove(subnet)  # delete-orphan: the subnet row goes
    bumped(network)
