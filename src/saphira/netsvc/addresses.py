"""Address arithmetic for subnets: CIDRs, gateways, allocation pools, EUI-64.

Pure functions over ``ipaddress`` objects; the rules are Neutron's (its
``ipam.utils``): a pool never holds the network address, nor the broadcast
address of an IPv4 subnet, nor the gateway.
"""

from __future__ import annotations

import ipaddress
import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from saphira.netsvc import errors
from saphira.netsvc.validation import bad_attr

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Net = ipaddress.IPv4Network | ipaddress.IPv6Network


def _n(address: Address) -> int:
    """Addresses compare as numbers (one subnet's addresses share a version)."""
    return int(address)


@dataclass(frozen=True)
class Pool:
    first: Address
    last: Address

    def __str__(self) -> str:
        return f"{self.first}-{self.last}"

    def __contains__(self, address: object) -> bool:
        return isinstance(address, type(self.first)) and int(self.first) <= int(address) <= int(
            self.last
        )


def parse_cidr(value: str, attr: str = "cidr") -> Net:
    try:
        net = ipaddress.ip_network(value, strict=False)
    except ValueError:
        raise bad_attr(attr, f"'{value}' is not a valid IP subnet") from None
    if "/" not in value:
        raise bad_attr(
            attr, f"'{value}' isn't a recommended IP address, '{net}' should be used instead"
        )
    if str(net) != value and str(net) != value.lower():
        raise bad_attr(attr, f"'{value}' isn't a recommended CIDR, '{net}' should be used instead")
    return net


def parse_ip(value: object, attr: str) -> Address:
    try:
        return ipaddress.ip_address(str(value))
    except ValueError:
        raise bad_attr(attr, f"'{value}' is not a valid IP address") from None


def host_range(net: Net) -> tuple[Address, Address] | None:
    """The first and last address a port may take: no network address, no v4 broadcast."""
    if net.num_addresses == 1:
        return net.network_address, net.network_address
    first = net.network_address + 1
    last = net.broadcast_address - (1 if net.version == 4 else 0)
    return (first, last) if _n(first) <= _n(last) else None


def is_host(net: Net, address: Address) -> bool:
    bounds = host_range(net)
    return bounds is not None and address in Pool(*bounds)


def default_pools(net: Net, gateway: Address | None) -> list[Pool]:
    bounds = host_range(net)
    if bounds is None:
        return []
    first, last = bounds
    if gateway is None or gateway not in Pool(first, last):
        return [Pool(first, last)]
    pools = []
    if int(first) < int(gateway):
        pools.append(Pool(first, gateway - 1))
    if int(gateway) < int(last):
        pools.append(Pool(gateway + 1, last))
    return pools


def check_pools(net: Net, pools: list[Pool], gateway: Address | None) -> None:
    """Neutron's checks, in its order: bounds, overlaps, then the gateway."""
    bounds = host_range(net)
    for pool in pools:
        if {pool.first.version, pool.last.version} != {net.version} or _n(pool.first) > _n(
            pool.last
        ):
            raise errors.InvalidAllocationPool(pool=str(pool))
        if bounds is None or pool.first not in Pool(*bounds) or pool.last not in Pool(*bounds):
            raise errors.OutOfBoundsAllocationPool(pool=str(pool), subnet_cidr=str(net))
    ordered = sorted(pools, key=lambda p: _n(p.first))
    for before, after in itertools.pairwise(ordered):
        if _n(after.first) <= _n(before.last):
            raise errors.OverlappingAllocationPools(
                pool_1=str(before), pool_2=str(after), subnet_cidr=str(net)
            )
    if gateway is not None:
        for pool in pools:
            if gateway in pool:
                raise errors.GatewayConflictWithAllocationPools(
                    ip_address=str(gateway), pool=str(pool)
                )


def free(pools: list[Pool], taken: set[str], limit: int) -> list[str]:
    """Up to ``limit`` pool addresses not in ``taken``, walking the pools lazily."""
    found: list[str] = []
    for address in _walk(pools):
        text = str(address)
        if text not in taken:
            found.append(text)
            if len(found) >= limit:
                break
    return found


def _address(version: int, number: int) -> Address:
    return ipaddress.IPv4Address(number) if version == 4 else ipaddress.IPv6Address(number)


def _walk(pools: list[Pool]) -> Iterator[Address]:
    for pool in pools:
        for number in range(_n(pool.first), _n(pool.last) + 1):
            yield _address(pool.first.version, number)


def eui64(net: Net, mac: str) -> str:
    """The SLAAC address of ``mac`` in a /64: the MAC with ff:fe in the middle, U/L bit flipped."""
    octets = [int(part, 16) for part in mac.split(":")]
    octets[0] ^= 0x02
    interface = [*octets[:3], 0xFF, 0xFE, *octets[3:]]
    return str(net.network_address + int.from_bytes(bytes(interface), "big"))
