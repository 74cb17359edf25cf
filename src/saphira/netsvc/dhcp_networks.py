"""What a host's DHCP agent must serve: each network with a DHCP-enabled subnet on a
physical network the agent maps, with the agent's own port and every other port.

The agent's port (device_owner ``network:dhcp``, one per network and host) is
made here on first ask, bound to that host like any port, so the L2 agent
wires it and IPAM hands it an address from each DHCP subnet.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.context import RequestContext
from saphira.db.network.models import Network, Port, Subnet
from saphira.netsvc import ports
from saphira.netsvc.caller import Caller
from saphira.netsvc.host_ports import segment_of
from saphira.netsvc.settings import Settings
from saphira.objects.network import DhcpHost, DhcpNetwork, DhcpSubnet, FixedIP, HostRoute
from saphira.policy import Enforcer

DHCP_OWNER = "network:dhcp"


def device_id(host: str) -> str:
    """Neutron's shape (``dhcp<host uuid>-<network>``), keyed by host name here."""
    return f"dhcp-{host}"


def for_host(
    session: Session,
    enforcer: Enforcer,
    settings: Settings,
    host: str,
    physnets: set[str],
    *,
    make_ports: bool = True,
) -> list[DhcpNetwork] | None:
    """None (and nothing written) if a DHCP port is missing and ``make_ports`` is False."""
    served = session.scalars(
        sa.select(Network)
        .join(Subnet, Subnet.network_id == Network.id)
        .where(Subnet.enable_dhcp.is_(True))
        .distinct()
        .order_by(Network.id)
    ).all()
    found = []
    for network in served:
        if network.segment.physical_network not in physnets:
            continue
        own = _existing_port(session, network, host)
        if own is None and not make_ports:
            return None
        own = own or _make_port(session, enforcer, settings, network, host)
        found.append(_network(session, network, own))
    return found


def _existing_port(session: Session, network: Network, host: str) -> Port | None:
    return session.scalars(
        sa.select(Port).where(
            Port.network_id == network.id,
            Port.device_owner == DHCP_OWNER,
            Port.binding_host_id == host,
        )
    ).first()


def _make_port(
    session: Session, enforcer: Enforcer, settings: Settings, network: Network, host: str
) -> Port:
    admin = Caller(RequestContext(project_id=network.project_id, roles=("admin",)), enforcer)
    subnets = [{"subnet_id": s.id} for s in network.subnets if s.enable_dhcp]
    attrs = {
        "network_id": network.id, "project_id": network.project_id, "name": "",
        "device_owner": DHCP_OWNER, "device_id": device_id(host),
        "binding:host_id": host, "fixed_ips": subnets,
    }  # fmt: skip
    return ports.create(session, admin, settings, attrs)


def _host(port: Port) -> DhcpHost:
    ips = [FixedIP(a.subnet_id, a.ip_address) for a in port.fixed_ips]
    return DhcpHost(port.id, port.mac_address, ips, f"host-{port.id[:8]}")


def _subnet(subnet: Subnet) -> DhcpSubnet:
    return DhcpSubnet(
        subnet.id,
        subnet.cidr,
        subnet.ip_version,
        subnet.gateway_ip,
        subnet.enable_dhcp,
        [d.address for d in subnet.dns_nameservers],
        [HostRoute(r.destination, r.nexthop) for r in subnet.host_routes],
    )


def _network(session: Session, network: Network, own: Port) -> DhcpNetwork:
    others = session.scalars(
        sa.select(Port).where(Port.network_id == network.id, Port.id != own.id).order_by(Port.id)
    ).all()
    subnets = [_subnet(s) for s in network.subnets]
    hosts = [_host(port) for port in others if port.fixed_ips]
    return DhcpNetwork(network.id, segment_of(network), _host(own), subnets, hosts)
