"""What the layers judge: typed views of what the public APIs report."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

RUNNING = 1  # Nova's power_state for a running guest
L2_AGENT_TYPES = ("Open vSwitch agent", "Linux bridge agent")
DHCP_AGENT_TYPE = "DHCP agent"
MAPPED_TYPES = ("flat", "vlan")  # network types that need a bridge mapping on the host


@dataclass(frozen=True)
class Hypervisor:
    hostname: str
    host: str  # of its compute service
    state: str  # up | down
    status: str  # enabled | disabled


@dataclass(frozen=True)
class ComputeService:
    binary: str
    host: str
    state: str
    status: str


@dataclass(frozen=True)
class Agent:
    agent_type: str
    host: str
    alive: bool
    admin_state_up: bool
    bridge_mappings: Mapping[str, str] = field(default_factory=dict)
    leases: Mapping[str, frozenset[str]] = field(default_factory=dict)  # network id -> MACs

    @property
    def is_l2(self) -> bool:
        return self.agent_type in L2_AGENT_TYPES

    @property
    def is_dhcp(self) -> bool:
        return self.agent_type == DHCP_AGENT_TYPE


@dataclass(frozen=True)
class Server:
    id: str
    name: str
    status: str
    host: str | None  # None when policy hides it or the server never got one
    task_state: str | None
    power_state: int | None
    fault: str | None


@dataclass(frozen=True)
class Network:
    id: str
    name: str
    network_type: str | None  # None when policy hides the provider attributes
    physical_network: str | None
    dhcp_subnets: tuple[str, ...]  # ids of its subnets with DHCP enabled

    @property
    def needs_mapping(self) -> bool:
        return self.network_type in MAPPED_TYPES and self.physical_network is not None


@dataclass(frozen=True)
class Port:
    id: str
    mac: str
    network: Network
    ips: tuple[str, ...]
    status: str
    host_id: str | None  # the binding fields are None when policy hides them
    vif_type: str | None
    security_group_ids: tuple[str, ...]
    port_security: bool

    @property
    def ipv4(self) -> str | None:
        return next((ip for ip in self.ips if ":" not in ip), None)


@dataclass(frozen=True)
class Rule:
    direction: str
    ethertype: str
    protocol: str | None
    port_min: int | None
    port_max: int | None
    remote: str  # the prefix or group it admits
