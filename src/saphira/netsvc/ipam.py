"""IP address management that never hands out an address twice.

An address is a row keyed (subnet_id, ip_address). A port takes one by
inserting that row in a savepoint; if the key is taken (also by a
transaction that has not committed yet: the insert waits for it on a server
database) the savepoint is undone and another free address is tried. The
free list is read again each time, and creators pick among several free
addresses, so concurrent creates rarely meet on the same one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.network.models import IPAllocation, Network, Port, Subnet
from saphira.db.transactions import inserted
from saphira.netsvc import errors
from saphira.netsvc.addresses import Pool, eui64, free, is_host, parse_cidr, parse_ip
from saphira.netsvc.subnet_options import AUTO_ADDRESS_MODES
from saphira.netsvc.validation import bad_attr

SPREAD = 16  # free addresses a creator picks from at random
ATTEMPTS = 1000  # inserts refused before giving up (each refusal is another port's win)


@dataclass(frozen=True)
class Wanted:
    """One fixed IP of a request: a given address, or any from the first subnet with room."""

    subnets: tuple[Subnet, ...]
    ip: str | None = None


def is_auto(subnet: Subnet) -> bool:
    return subnet.ip_version == 6 and subnet.ipv6_address_mode in AUTO_ADDRESS_MODES


def default_wants(network: Network) -> list[Wanted]:
    """Neutron's default: an IPv4 address, a stateful IPv6 one, and every SLAAC address."""
    v4 = tuple(s for s in network.subnets if s.ip_version == 4)
    v6 = tuple(s for s in network.subnets if s.ip_version == 6 and not is_auto(s))
    wants = [Wanted(group) for group in (v4, v6) if group]
    return wants + [Wanted((s,)) for s in network.subnets if is_auto(s)]


def _subnet(session: Session, network: Network, subnet_id: str) -> Subnet:
    for subnet in network.subnets:
        if subnet.id == subnet_id:
            return subnet
    if session.get(Subnet, subnet_id) is None:
        raise errors.SubnetNotFound(subnet_id=subnet_id)
    raise errors.InvalidInput(
        error_message=f"Failed to create port on network {network.id}, because fixed_ips "
        f"included invalid subnet {subnet_id}"
    )


def _wanted(session: Session, network: Network, item: Any) -> Wanted:
    if not isinstance(item, dict) or not set(item) <= {"subnet_id", "ip_address"} or not item:
        raise bad_attr("fixed_ips", f"Invalid data format for fixed IP: '{item}'")
    subnet = _subnet(session, network, str(item["subnet_id"])) if "subnet_id" in item else None
    if subnet is not None and "ip_address" not in item:
        return Wanted((subnet,))
    ip = parse_ip(item["ip_address"], "fixed_ips")
    if subnet is None:
        subnet = next((s for s in network.subnets if is_host(parse_cidr(s.cidr), ip)), None)
        if subnet is None:
            raise errors.InvalidIpForNetwork(ip_address=str(ip))
    elif not is_host(parse_cidr(subnet.cidr), ip):
        raise errors.InvalidIpForSubnet(ip_address=str(ip))
    if is_auto(subnet):
        raise errors.InvalidInput(
            error_message=f"IPv6 address {ip} cannot be directly assigned to a port on subnet "
            f"{subnet.id} as the subnet is configured for automatic addresses"
        )
    return Wanted((subnet,), str(ip))


def wants_of(session: Session, network: Network, fixed_ips: list[Any]) -> list[Wanted]:
    wants = [_wanted(session, network, item) for item in fixed_ips]
    given = [(w.subnets[0].id, w.ip) for w in wants if w.ip]
    if len(given) != len(set(given)):
        raise errors.InvalidInput(error_message="Duplicate IP address in fixed_ips")
    return wants


def allocate(session: Session, port: Port, wants: list[Wanted], start: int = 0) -> None:
    """Give ``port`` the wanted addresses (positions from ``start``), or raise and write none."""
    for position, want in enumerate(wants, start):
        first = want.subnets[0]
        if want.ip is not None or is_auto(first):
            ip = want.ip or eui64(parse_cidr(first.cidr), port.mac_address)
            if not inserted(session, _row(port, first, ip, position)):
                raise errors.IpAddressAlreadyAllocated(ip=ip, subnet_id=first.id)
            continue
        if not any(_any_address(session, port, subnet, position) for subnet in want.subnets):
            raise errors.IpAddressGenerationFailure(net_id=port.network_id)


def _row(port: Port, subnet: Subnet, ip: str, position: int) -> IPAllocation:
    return IPAllocation(
        subnet_id=subnet.id, ip_address=ip, port_id=port.id, network_id=port.network_id,
        position=position,
    )  # fmt: skip


def _any_address(session: Session, port: Port, subnet: Subnet, position: int) -> bool:
    pools = [Pool(parse_ip(p.first_ip, "pool"), parse_ip(p.last_ip, "pool")) for p in subnet.pools]
    for _ in range(ATTEMPTS):
        taken = set(
            session.scalars(
                sa.select(IPAllocation.ip_address).where(IPAllocation.subnet_id == subnet.id)
            )
        )
        candidates = free(pools, taken, SPREAD)
        if not candidates:
            return False
        if inserted(session, _row(port, subnet, random.choice(candidates), position)):
            return True
    return False
