"""Networks, subnets and ports through openstacksdk, as typed values for the pages.

The project's view holds its own networks and those shared with it or
external; any other network is "not found", also for an administrator whose
token could read it. Provider attributes (type, physical network, VLAN id)
are shown to administrators, the only ones Neutron gives them to.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from openstack import connection

from saphira.dashboard.errors import PageError
from saphira.dashboard.netforms import NetworkRequest, SubnetRequest
from saphira.dashboard.parallel import Calls

Conn = connection.Connection
NOT_HERE = "Not found in this project."


@dataclass(frozen=True)
class SubnetInfo:
    id: str
    name: str
    cidr: str
    ip_version: int
    gateway: str
    dhcp: bool
    pools: tuple[str, ...]  # "start-end"
    dns: tuple[str, ...]


@dataclass(frozen=True)
class PortInfo:
    id: str
    name: str
    owner: str  # device_owner: "network:dhcp", "compute:nova", ""
    device_id: str
    addresses: tuple[str, ...]
    status: str


@dataclass(frozen=True)
class NetworkRow:
    id: str
    name: str
    project_id: str
    subnets: tuple[SubnetInfo, ...]
    shared: bool
    external: bool
    status: str
    network_type: str
    physical_network: str
    segmentation_id: str

    def owned_by(self, project_id: str) -> bool:
        return self.project_id == project_id


@dataclass(frozen=True)
class NetworkDetail:
    network: NetworkRow
    ports: tuple[PortInfo, ...]


def _subnet(s: Any) -> SubnetInfo:
    pools = tuple(f"{p.get('start')}-{p.get('end')}" for p in s.allocation_pools or ())
    return SubnetInfo(
        str(s.id), str(s.name or ""), str(s.cidr), int(s.ip_version or 4),
        str(s.gateway_ip or ""), bool(s.is_dhcp_enabled), pools,
        tuple(str(d) for d in s.dns_nameservers or ()),
    )  # fmt: skip


def _network(n: Any, subnets: dict[str, SubnetInfo]) -> NetworkRow:
    mine = tuple(subnets[i] for i in n.subnet_ids or () if i in subnets)
    segment = n.provider_segmentation_id
    return NetworkRow(
        str(n.id), str(n.name or n.id), str(n.project_id or ""),
        tuple(sorted(mine, key=lambda s: (s.ip_version, s.cidr))), bool(n.is_shared),
        bool(n.is_router_external), str(n.status or ""), str(n.provider_network_type or ""),
        str(n.provider_physical_network or ""), "" if segment is None else str(segment),
    )  # fmt: skip


def _port(p: Any) -> PortInfo:
    ips = tuple(str(f.get("ip_address", "")) for f in p.fixed_ips or ())
    return PortInfo(str(p.id), str(p.name or ""), str(p.device_owner or ""),
                    str(p.device_id or ""), ips, str(p.status or ""))  # fmt: skip


def _visible(row: NetworkRow, project_id: str) -> bool:
    return row.owned_by(project_id) or row.shared or row.external


def _subnets(conn: Conn, **query: str) -> dict[str, SubnetInfo]:
    return {str(s.id): _subnet(s) for s in conn.network.subnets(**query)}


def networks(calls: Calls, conn: Conn, project_id: str) -> list[NetworkRow]:
    """The project's networks with their subnets (two calls, in parallel)."""
    found, subnets = calls.gather(lambda: list(conn.network.networks()), partial(_subnets, conn))
    rows = (_network(n, subnets) for n in found)
    return sorted((r for r in rows if _visible(r, project_id)), key=lambda r: (r.name, r.id))


def network(calls: Calls, conn: Conn, project_id: str, network_id: str) -> NetworkDetail:
    """One network with its subnets and ports (three calls, in parallel)."""
    found, subnets, ports = calls.gather(
        partial(conn.network.get_network, network_id),
        partial(_subnets, conn, network_id=network_id),
        lambda: list(conn.network.ports(network_id=network_id)),
    )
    row = _network(found, subnets)
    if not _visible(row, project_id):
        raise PageError(404, NOT_HERE)
    ordered = sorted((_port(p) for p in ports), key=lambda p: (p.owner, p.addresses))
    return NetworkDetail(row, tuple(ordered))


def create_network(conn: Conn, asked: NetworkRequest) -> str:
    attrs: dict[str, Any] = {"name": asked.name}
    if asked.shared:
        attrs["is_shared"] = True
    if asked.network_type:
        attrs["provider_network_type"] = asked.network_type
    if asked.physical_network:
        attrs["provider_physical_network"] = asked.physical_network
    if asked.segmentation_id is not None:
        attrs["provider_segmentation_id"] = asked.segmentation_id
    return str(conn.network.create_network(**attrs).id)


def create_subnet(conn: Conn, network_id: str, asked: SubnetRequest) -> str:
    attrs: dict[str, Any] = {
        "network_id": network_id, "name": asked.name, "cidr": asked.cidr,
        "ip_version": asked.ip_version, "is_dhcp_enabled": asked.dhcp,
    }  # fmt: skip
    if asked.no_gateway:
        attrs["gateway_ip"] = None
    elif asked.gateway:
        attrs["gateway_ip"] = asked.gateway
    if asked.pools:
        attrs["allocation_pools"] = [{"start": s, "end": e} for s, e in asked.pools]
    if asked.dns:
        attrs["dns_nameservers"] = list(asked.dns)
    return str(conn.network.create_subnet(**attrs).id)


def create_with_subnet(conn: Conn, net: NetworkRequest, sub: SubnetRequest | None) -> str:
    """The network and its first subnet; a refused subnet takes the new network back."""
    made = create_network(conn, net)
    if sub is None:
        return made
    try:
        create_subnet(conn, made, sub)
    except Exception:
        conn.network.delete_network(made, ignore_missing=True)
        raise
    return made


def delete_network(conn: Conn, network_id: str) -> None:
    """Its subnets go with it; ports still in use make the API refuse (409)."""
    conn.network.delete_network(network_id, ignore_missing=False)


def delete_subnet(conn: Conn, subnet_id: str) -> None:
    conn.network.delete_subnet(subnet_id, ignore_missing=False)
