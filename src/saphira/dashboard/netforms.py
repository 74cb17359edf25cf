"""The Create Network and Add Subnet forms read into requests, or what is wrong.

As Horizon's network workflow: a network (an administrator may make it a
provider network, flat or VLAN on a physical network, and shared) with an
optional first subnet: its CIDR, a gateway (the first address unless given,
or none), DHCP on unless unticked, allocation pools ("start,end" a line) and
DNS servers (one a line). The API still checks everything.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass

NETWORK_TYPES = ("flat", "vlan")
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True)
class NetworkRequest:
    name: str
    shared: bool = False
    network_type: str = ""  # "": the cloud's project network type
    physical_network: str = ""
    segmentation_id: int | None = None


@dataclass(frozen=True)
class SubnetRequest:
    name: str
    cidr: str
    ip_version: int
    gateway: str  # "": the cloud picks the first address
    no_gateway: bool
    dhcp: bool
    pools: tuple[tuple[str, str], ...]
    dns: tuple[str, ...]


def network(form: Mapping[str, str], admin: bool) -> NetworkRequest | str:
    name = form.get("name", "").strip()
    if not name:
        return "Give the network a name."
    if not admin:
        return NetworkRequest(name)
    kind, physnet = form.get("network_type", ""), form.get("physical_network", "").strip()
    segment = form.get("segmentation_id", "").strip()
    if kind and kind not in NETWORK_TYPES:
        return "The provider network type is flat or vlan."
    if kind == "flat" and not physnet:
        return "A flat network needs its physical network (such as physnet1)."
    if segment and (kind != "vlan" or not segment.isdigit() or not 1 <= int(segment) <= 4094):
        return "A segmentation id is a VLAN id from 1 to 4094, for a vlan network."
    return NetworkRequest(name, form.get("shared") == "on", kind, physnet if kind else "",
                          int(segment) if segment else None)  # fmt: skip


def subnet(form: Mapping[str, str]) -> SubnetRequest | str | None:
    """The subnet asked for; None when no CIDR is given (a network without one)."""
    text = form.get("cidr", "").strip()
    if not text:
        return None
    try:
        net = ipaddress.ip_network(text, strict=False)
    except ValueError:
        return f"“{text}” is not a network address such as 192.0.2.0/24."
    gateway, no_gateway = form.get("gateway", "").strip(), form.get("no_gateway") == "on"
    if gateway and (no_gateway or _address(gateway) not in net):
        return f"The gateway must be an address of {net}, or leave it empty."
    pools = _pools(form.get("pools", ""), net)
    if isinstance(pools, str):
        return pools
    dns = tuple(form.get("dns", "").split())
    if any(_address(d) is None for d in dns):
        return "Each DNS server is an IP address, one a line."
    return SubnetRequest(form.get("subnet_name", "").strip(), str(net), net.version, gateway,
                         no_gateway, form.get("dhcp") == "on", pools, dns)  # fmt: skip


def _address(text: str) -> Address | None:
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def _pools(
    text: str, net: ipaddress.IPv4Network | ipaddress.IPv6Network
) -> tuple[tuple[str, str], ...] | str:
    pools = []
    for line in text.splitlines():
        if not line.strip():
            continue
        ends = [_address(part) for part in line.split(",")]
        if len(ends) != 2 or any(end is None or end not in net for end in ends):
            return f"Each allocation pool is “start,end” with both in {net}: not “{line}”."
        pools.append((str(ends[0]), str(ends[1])))
    return tuple(pools)
