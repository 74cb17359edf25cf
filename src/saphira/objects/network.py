"""What the network service tells its agents: ports to wire, networks to serve.

The L2 agent gets ``PortDetails`` (one per tap on its host) with the
security rules already resolved to addresses; the DHCP agent gets a
``DhcpNetwork`` per network it serves. Agents never read the database, so
these carry everything they need.
"""

from __future__ import annotations

import dataclasses

from saphira.objects.base import SaphiraObject

#: The agent types, as the service's agents table and `openstack network agent list` show them.
OVS_AGENT = "Open vSwitch agent"
LINUXBRIDGE_AGENT = "Linux bridge agent"
DHCP_AGENT = "DHCP agent"


@dataclasses.dataclass
class FixedIP(SaphiraObject):
    VERSION = "1.0"

    subnet_id: str
    ip_address: str


@dataclasses.dataclass
class Segment(SaphiraObject):
    """Where a network meets the wire: flat, or a VLAN on a physical network."""

    VERSION = "1.0"

    network_type: str  # "flat" or "vlan"
    physical_network: str  # e.g. "physnet1", found in bridge_mappings
    segmentation_id: int | None = None  # the VLAN id for "vlan"
    mtu: int = 1500


@dataclasses.dataclass
class SecurityRule(SaphiraObject):
    """One rule with its remote group already expanded to member addresses."""

    VERSION = "1.0"

    direction: str  # "ingress" or "egress"
    ethertype: str = "IPv4"  # or "IPv6"
    protocol: str | None = None  # "tcp", "udp", "icmp", "icmpv6", a number, or None (any)
    port_range_min: int | None = None  # for icmp: the type
    port_range_max: int | None = None  # for icmp: the code
    remote_ip_prefix: str | None = None  # a CIDR, or None for any
    remote_addresses: list[str] = dataclasses.field(default_factory=list)  # from remote_group_id
    remote_group_id: str | None = None  # kept for logs; remote_addresses is what matters


@dataclasses.dataclass
class AddressPair(SaphiraObject):
    VERSION = "1.0"

    ip_address: str  # an address or a CIDR
    mac_address: str


@dataclasses.dataclass
class PortDetails(SaphiraObject):
    """One port bound to this host, as the L2 agent must wire and filter it."""

    VERSION = "1.0"

    port_id: str
    network_id: str
    mac_address: str
    segment: Segment
    fixed_ips: list[FixedIP] = dataclasses.field(default_factory=list)
    device_owner: str = ""
    device_id: str = ""
    admin_state_up: bool = True
    port_security_enabled: bool = True
    allowed_address_pairs: list[AddressPair] = dataclasses.field(default_factory=list)
    security_rules: list[SecurityRule] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class HostRoute(SaphiraObject):
    VERSION = "1.0"

    destination: str
    nexthop: str


@dataclasses.dataclass
class DhcpSubnet(SaphiraObject):
    VERSION = "1.0"

    subnet_id: str
    cidr: str
    ip_version: int = 4
    gateway_ip: str | None = None
    enable_dhcp: bool = True
    dns_nameservers: list[str] = dataclasses.field(default_factory=list)
    host_routes: list[HostRoute] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class DhcpHost(SaphiraObject):
    """One port dnsmasq answers: its MAC gets exactly these addresses."""

    VERSION = "1.0"

    port_id: str
    mac_address: str
    fixed_ips: list[FixedIP] = dataclasses.field(default_factory=list)
    hostname: str = ""


@dataclasses.dataclass
class DhcpNetwork(SaphiraObject):
    """A network the DHCP agent serves, with the agent's own port on it."""

    VERSION = "1.0"

    network_id: str
    segment: Segment
    dhcp_port: DhcpHost  # the agent's port (device_owner network:dhcp)
    subnets: list[DhcpSubnet] = dataclasses.field(default_factory=list)
    hosts: list[DhcpHost] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class AgentChange(SaphiraObject):
    """What one network API write concerns, so that agents it does not concern skip it.

    An L2 agent resyncs when its host is named (a port bound there, or one
    whose rules or remote-group members changed); a DHCP agent when one of the
    physical networks its bridges map is. ``everything``: every agent resyncs
    (a change the service could not pin down).
    """

    VERSION = "1.0"

    network_ids: list[str] = dataclasses.field(default_factory=list)
    physnets: list[str] = dataclasses.field(default_factory=list)
    hosts: list[str] = dataclasses.field(default_factory=list)
    everything: bool = False
