"""What an L2 agent must wire on its host: the bound ports with everything resolved.

The agents never read the database; ``ports_for_host`` hands them each port
as a ``PortDetails`` (segment, addresses, address pairs, and the security
rules with remote groups expanded to their members' addresses), and
``report_ports`` records what the agent wired. The network service's RPC
endpoint (topic ``network``) answers ``get_ports`` and ``ports_status`` with
these.
"""

from __future__ import annotations

from collections import defaultdict

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.network.models import Network, Port, PortSecurityGroup
from saphira.db.network.models_ext import SecurityGroupRule
from saphira.netsvc.binding import VIF_TYPES
from saphira.objects.network import AddressPair, FixedIP, PortDetails, SecurityRule, Segment


def _family(address: str) -> str:
    return "IPv6" if ":" in address else "IPv4"


def _members(session: Session, group_ids: set[str]) -> dict[str, list[str]]:
    """Each group's member addresses: fixed IPs and allowed address pairs of its ports."""
    if not group_ids:
        return {}
    rows = session.execute(
        sa.select(PortSecurityGroup.security_group_id, Port)
        .join(Port, Port.id == PortSecurityGroup.port_id)
        .where(PortSecurityGroup.security_group_id.in_(group_ids))
    ).all()
    members: dict[str, list[str]] = defaultdict(list)
    for group_id, port in rows:
        members[group_id] += [a.ip_address for a in port.fixed_ips]
        members[group_id] += [p.ip_address for p in port.address_pairs]
    return members


def _rules(session: Session, group_ids: set[str]) -> dict[str, list[SecurityRule]]:
    rules = session.scalars(
        sa.select(SecurityGroupRule).where(SecurityGroupRule.security_group_id.in_(group_ids))
    ).all()
    members = _members(session, {r.remote_group_id for r in rules if r.remote_group_id})
    found: dict[str, list[SecurityRule]] = defaultdict(list)
    for rule in rules:
        remote = rule.remote_group_id
        addresses = [a for a in members.get(remote or "", []) if _family(a) == rule.ethertype]
        found[rule.security_group_id].append(
            SecurityRule(
                direction=rule.direction, ethertype=rule.ethertype, protocol=rule.protocol,
                port_range_min=rule.port_range_min, port_range_max=rule.port_range_max,
                remote_ip_prefix=rule.remote_ip_prefix, remote_addresses=sorted(set(addresses)),
                remote_group_id=remote,
            )
        )  # fmt: skip
    return found


def segment_of(network: Network) -> Segment:
    segment = network.segment
    vlan = segment.segmentation_id if segment.network_type == "vlan" else None
    return Segment(segment.network_type, segment.physical_network, vlan, network.mtu)


def _details(port: Port, network: Network, rules: dict[str, list[SecurityRule]]) -> PortDetails:
    return PortDetails(
        port_id=port.id,
        network_id=port.network_id,
        mac_address=port.mac_address,
        segment=segment_of(network),
        fixed_ips=[FixedIP(a.subnet_id, a.ip_address) for a in port.fixed_ips],
        device_owner=port.device_owner,
        device_id=port.device_id,
        admin_state_up=port.admin_state_up,
        port_security_enabled=port.port_security_enabled,
        allowed_address_pairs=[
            AddressPair(p.ip_address, p.mac_address) for p in port.address_pairs
        ],
        security_rules=[
            rule
            for b in port.security_group_bindings
            for rule in rules.get(b.security_group_id, [])
        ],
    )


def ports_for_host(session: Session, host: str) -> list[PortDetails]:
    bound = sa.select(Port).where(
        Port.binding_host_id == host, Port.binding_vif_type.in_(set(VIF_TYPES.values()))
    )
    ports = session.scalars(bound.order_by(Port.id)).all()
    wanted = {port.network_id for port in ports}
    networks = {n.id: n for n in session.scalars(sa.select(Network).where(Network.id.in_(wanted)))}
    groups = {b.security_group_id for p in ports for b in p.security_group_bindings}
    rules = _rules(session, groups) if groups else {}
    return [_details(port, networks[port.network_id], rules) for port in ports]


def report_ports(session: Session, host: str, up: list[str], down: list[str]) -> list[str]:
    """Mark the host's wired ports ACTIVE and the lost ones DOWN; the ids that became ACTIVE."""
    became: list[str] = []
    for status, ids in (("ACTIVE", up), ("DOWN", down)):
        if not ids:
            continue
        changed = session.scalars(
            sa.select(Port.id).where(
                Port.id.in_(ids), Port.binding_host_id == host, Port.status != status
            )
        ).all()
        session.execute(sa.update(Port).where(Port.id.in_(changed)).values(status=status))
        if status == "ACTIVE":
            became += changed
    return became
