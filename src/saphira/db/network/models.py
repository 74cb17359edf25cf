"""Network tables: networks with their segment, subnets, ports and IP allocations.

Neutron's layout, trimmed to what is served. Races are settled by unique
keys, not by reads: an address is one row keyed (subnet_id, ip_address), a
MAC is unique per network, and a segment is unique per (physical_network,
segmentation_id) with flat networks stored as VLAN 0 (untagged), so two flat
networks on one physical network collide exactly like two equal VLANs.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

ID = sa.String(36)
Timestamp = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
FLAT_SEGMENTATION_ID = 0


class Base(DeclarativeBase):
    pass


class StandardAttrs:
    """Neutron's standard attributes: description, timestamps and a revision number."""

    description: Mapped[str] = mapped_column(sa.String(255), default="")
    created_at: Mapped[dt.datetime] = mapped_column(Timestamp)
    updated_at: Mapped[dt.datetime] = mapped_column(Timestamp)
    revision_number: Mapped[int] = mapped_column(sa.BigInteger, default=0)


def _fk(target: str) -> Any:
    return sa.ForeignKey(target, ondelete="CASCADE")


class Network(StandardAttrs, Base):
    __tablename__ = "networks"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    project_id: Mapped[str] = mapped_column(sa.String(255), index=True)
    name: Mapped[str] = mapped_column(sa.String(255), default="", index=True)
    status: Mapped[str] = mapped_column(sa.String(16))
    admin_state_up: Mapped[bool]
    shared: Mapped[bool] = mapped_column(index=True)
    external: Mapped[bool]
    mtu: Mapped[int]
    port_security_enabled: Mapped[bool]

    segment: Mapped[NetworkSegment] = relationship(
        cascade="all, delete-orphan", lazy="selectin", uselist=False
    )
    subnets: Mapped[list[Subnet]] = relationship(
        cascade="all, delete-orphan", lazy="selectin", order_by="Subnet.created_at"
    )


class NetworkSegment(Base):
    __tablename__ = "network_segments"
    __table_args__ = (
        sa.UniqueConstraint("physical_network", "segmentation_id", name="uniq_segment_on_wire"),
    )

    network_id: Mapped[str] = mapped_column(ID, _fk("networks.id"), primary_key=True)
    network_type: Mapped[str] = mapped_column(sa.String(16))
    physical_network: Mapped[str] = mapped_column(sa.String(64))
    segmentation_id: Mapped[int]


class Subnet(StandardAttrs, Base):
    __tablename__ = "subnets"

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    project_id: Mapped[str] = mapped_column(sa.String(255), index=True)
    network_id: Mapped[str] = mapped_column(ID, _fk("networks.id"), index=True)
    name: Mapped[str] = mapped_column(sa.String(255), default="")
    ip_version: Mapped[int]
    cidr: Mapped[str] = mapped_column(sa.String(64))
    gateway_ip: Mapped[str | None] = mapped_column(sa.String(64))
    enable_dhcp: Mapped[bool]
    ipv6_ra_mode: Mapped[str | None] = mapped_column(sa.String(16))
    ipv6_address_mode: Mapped[str | None] = mapped_column(sa.String(16))

    pools: Mapped[list[AllocationPool]] = relationship(
        cascade="all, delete-orphan", lazy="selectin", order_by="AllocationPool.position"
    )
    dns_nameservers: Mapped[list[DnsNameserver]] = relationship(
        cascade="all, delete-orphan", lazy="selectin", order_by="DnsNameserver.position"
    )
    host_routes: Mapped[list[HostRoute]] = relationship(
        cascade="all, delete-orphan", lazy="selectin", order_by="HostRoute.position"
    )


class AllocationPool(Base):
    __tablename__ = "subnet_allocation_pools"

    subnet_id: Mapped[str] = mapped_column(ID, _fk("subnets.id"), primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    first_ip: Mapped[str] = mapped_column(sa.String(64))
    last_ip: Mapped[str] = mapped_column(sa.String(64))


class DnsNameserver(Base):
    __tablename__ = "subnet_dns_nameservers"

    subnet_id: Mapped[str] = mapped_column(ID, _fk("subnets.id"), primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    address: Mapped[str] = mapped_column(sa.String(128))


class HostRoute(Base):
    __tablename__ = "subnet_routes"

    subnet_id: Mapped[str] = mapped_column(ID, _fk("subnets.id"), primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    destination: Mapped[str] = mapped_column(sa.String(64))
    nexthop: Mapped[str] = mapped_column(sa.String(64))


class Port(StandardAttrs, Base):
    __tablename__ = "ports"
    __table_args__ = (sa.UniqueConstraint("network_id", "mac_address", name="uniq_port_mac"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    project_id: Mapped[str] = mapped_column(sa.String(255), index=True)
    network_id: Mapped[str] = mapped_column(ID, _fk("networks.id"), index=True)
    name: Mapped[str] = mapped_column(sa.String(255), default="")
    mac_address: Mapped[str] = mapped_column(sa.String(32))
    admin_state_up: Mapped[bool]
    status: Mapped[str] = mapped_column(sa.String(16))
    device_id: Mapped[str] = mapped_column(sa.String(255), default="", index=True)
    device_owner: Mapped[str] = mapped_column(sa.String(255), default="")
    port_security_enabled: Mapped[bool]
    binding_host_id: Mapped[str] = mapped_column(sa.String(255), default="", index=True)
    binding_vif_type: Mapped[str] = mapped_column(sa.String(64))
    binding_vnic_type: Mapped[str] = mapped_column(sa.String(64))
    binding_vif_details: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    binding_profile: Mapped[dict[str, Any]] = mapped_column(sa.JSON)

    fixed_ips: Mapped[list[IPAllocation]] = relationship(
        cascade="all, delete-orphan", lazy="selectin", order_by="IPAllocation.position"
    )
    address_pairs: Mapped[list[AllowedAddressPair]] = relationship(
        cascade="all, delete-orphan", lazy="selectin", order_by="AllowedAddressPair.position"
    )
    security_group_bindings: Mapped[list[PortSecurityGroup]] = relationship(
        cascade="all, delete-orphan", lazy="selectin", order_by="PortSecurityGroup.position"
    )


class IPAllocation(Base):
    """One address of one port; the primary key is what makes an address single-use."""

    __tablename__ = "ipallocations"

    subnet_id: Mapped[str] = mapped_column(ID, _fk("subnets.id"), primary_key=True)
    ip_address: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    port_id: Mapped[str] = mapped_column(ID, _fk("ports.id"), index=True)
    network_id: Mapped[str] = mapped_column(ID, index=True)
    position: Mapped[int]


class AllowedAddressPair(Base):
    __tablename__ = "allowedaddresspairs"

    port_id: Mapped[str] = mapped_column(ID, _fk("ports.id"), primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    mac_address: Mapped[str] = mapped_column(sa.String(32))
    ip_address: Mapped[str] = mapped_column(sa.String(64))


class PortSecurityGroup(Base):
    """A port in a group; the group's key has no cascade, so a group in use stays."""

    __tablename__ = "securitygroupportbindings"

    port_id: Mapped[str] = mapped_column(ID, _fk("ports.id"), primary_key=True)
    security_group_id: Mapped[str] = mapped_column(
        ID, sa.ForeignKey("securitygroups.id"), primary_key=True, index=True
    )
    position: Mapped[int]
