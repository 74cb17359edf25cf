"""The network schema as of the first release.

Revision ID: network_0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from saphira.db.network.models import ID, Timestamp

revision = "network_0001"
down_revision = None
branch_labels = None
depends_on = None


def _standard() -> list[sa.Column[object]]:
    return [
        sa.Column("description", sa.String(255), nullable=False),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.Column("updated_at", Timestamp, nullable=False),
        sa.Column("revision_number", sa.BigInteger, nullable=False),
    ]


def _ref(
    name: str,
    target: str,
    *,
    primary_key: bool = False,
    nullable: bool | None = None,
    index: bool = False,
    unique: bool = False,
) -> sa.Column[str]:
    return sa.Column(
        name,
        ID,
        sa.ForeignKey(target, ondelete="CASCADE"),
        primary_key=primary_key,
        nullable=not primary_key if nullable is None else nullable,
        index=index,
        unique=unique,
    )


def _l2() -> None:
    op.create_table(
        "networks",
        sa.Column("id", ID, primary_key=True),
        sa.Column("project_id", sa.String(255), nullable=False, index=True),
        sa.Column("name", sa.String(255), nullable=False, index=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("admin_state_up", sa.Boolean, nullable=False),
        sa.Column("shared", sa.Boolean, nullable=False, index=True),
        sa.Column("external", sa.Boolean, nullable=False),
        sa.Column("mtu", sa.Integer, nullable=False),
        sa.Column("port_security_enabled", sa.Boolean, nullable=False),
        *_standard(),
    )
    op.create_table(
        "network_segments",
        _ref("network_id", "networks.id", primary_key=True),
        sa.Column("network_type", sa.String(16), nullable=False),
        sa.Column("physical_network", sa.String(64), nullable=False),
        sa.Column("segmentation_id", sa.Integer, nullable=False),
        sa.UniqueConstraint("physical_network", "segmentation_id", name="uniq_segment_on_wire"),
    )
    op.create_table(
        "subnets",
        sa.Column("id", ID, primary_key=True),
        sa.Column("project_id", sa.String(255), nullable=False, index=True),
        _ref("network_id", "networks.id", nullable=False, index=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("ip_version", sa.Integer, nullable=False),
        sa.Column("cidr", sa.String(64), nullable=False),
        sa.Column("gateway_ip", sa.String(64)),
        sa.Column("enable_dhcp", sa.Boolean, nullable=False),
        sa.Column("ipv6_ra_mode", sa.String(16)),
        sa.Column("ipv6_address_mode", sa.String(16)),
        *_standard(),
    )
    for table, columns in (
        ("subnet_allocation_pools", ("first_ip", "last_ip")),
        ("subnet_dns_nameservers", ("address",)),
        ("subnet_routes", ("destination", "nexthop")),
    ):
        op.create_table(
            table,
            _ref("subnet_id", "subnets.id", primary_key=True),
            sa.Column("position", sa.Integer, primary_key=True),
            *(sa.Column(name, sa.String(128 if name == "address" else 64), nullable=False)
              for name in columns),
        )  # fmt: skip


def _ports() -> None:
    op.create_table(
        "ports",
        sa.Column("id", ID, primary_key=True),
        sa.Column("project_id", sa.String(255), nullable=False, index=True),
        _ref("network_id", "networks.id", nullable=False, index=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("mac_address", sa.String(32), nullable=False),
        sa.Column("admin_state_up", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("device_id", sa.String(255), nullable=False, index=True),
        sa.Column("device_owner", sa.String(255), nullable=False),
        sa.Column("port_security_enabled", sa.Boolean, nullable=False),
        sa.Column("binding_host_id", sa.String(255), nullable=False, index=True),
        sa.Column("binding_vif_type", sa.String(64), nullable=False),
        sa.Column("binding_vnic_type", sa.String(64), nullable=False),
        sa.Column("binding_vif_details", sa.JSON, nullable=False),
        sa.Column("binding_profile", sa.JSON, nullable=False),
        *_standard(),
        sa.UniqueConstraint("network_id", "mac_address", name="uniq_port_mac"),
    )
    op.create_table(
        "ipallocations",
        _ref("subnet_id", "subnets.id", primary_key=True),
        sa.Column("ip_address", sa.String(64), primary_key=True),
        _ref("port_id", "ports.id", nullable=False, index=True),
        sa.Column("network_id", ID, nullable=False, index=True),
        sa.Column("position", sa.Integer, nullable=False),
    )
    op.create_table(
        "allowedaddresspairs",
        _ref("port_id", "ports.id", primary_key=True),
        sa.Column("position", sa.Integer, primary_key=True),
        sa.Column("mac_address", sa.String(32), nullable=False),
        sa.Column("ip_address", sa.String(64), nullable=False),
    )


def _security_groups() -> None:
    op.create_table(
        "securitygroups",
        sa.Column("id", ID, primary_key=True),
        sa.Column("project_id", sa.String(255), nullable=False, index=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("stateful", sa.Boolean, nullable=False),
        *_standard(),
    )
    op.create_table(
        "default_security_group",
        sa.Column("project_id", sa.String(255), primary_key=True),
        _ref("security_group_id", "securitygroups.id", nullable=False, unique=True),
    )
    op.create_table(
        "securitygrouprules",
        sa.Column("id", ID, primary_key=True),
        sa.Column("project_id", sa.String(255), nullable=False, index=True),
        _ref("security_group_id", "securitygroups.id", nullable=False, index=True),
        _ref("remote_group_id", "securitygroups.id", index=True),
        sa.Column("direction", sa.String(16), nullable=False),
        sa.Column("ethertype", sa.String(40), nullable=False),
        sa.Column("protocol", sa.String(40)),
        sa.Column("port_range_min", sa.Integer),
        sa.Column("port_range_max", sa.Integer),
        sa.Column("remote_ip_prefix", sa.String(255)),
        sa.Column("fingerprint", sa.String(255), nullable=False),
        *_standard(),
        sa.UniqueConstraint("security_group_id", "fingerprint", name="uniq_rule_in_group"),
    )
    op.create_table(
        "securitygroupportbindings",
        _ref("port_id", "ports.id", primary_key=True),
        sa.Column(
            "security_group_id",
            ID,
            sa.ForeignKey("securitygroups.id"),
            primary_key=True,
            index=True,
        ),
        sa.Column("position", sa.Integer, nullable=False),
    )


def _operations() -> None:
    op.create_table(
        "agents",
        sa.Column("id", ID, primary_key=True),
        sa.Column("agent_type", sa.String(255), nullable=False),
        sa.Column("binary", sa.String(255), nullable=False),
        sa.Column("topic", sa.String(255), nullable=False),
        sa.Column("host", sa.String(255), nullable=False, index=True),
        sa.Column("availability_zone", sa.String(255)),
        sa.Column("admin_state_up", sa.Boolean, nullable=False),
        sa.Column("description", sa.String(255)),
        sa.Column("configurations", sa.JSON, nullable=False),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.Column("started_at", Timestamp, nullable=False),
        sa.Column("heartbeat_timestamp", Timestamp, nullable=False),
        sa.UniqueConstraint("agent_type", "host", name="uniq_agent_on_host"),
    )
    op.create_table(
        "quotas",
        sa.Column("project_id", sa.String(255), primary_key=True),
        sa.Column("resource", sa.String(255), primary_key=True),
        sa.Column("limit", sa.Integer, nullable=False),
    )


def upgrade() -> None:
    _l2()
    _ports()
    _security_groups()
    _operations()
