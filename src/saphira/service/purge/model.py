"""What purge reads and decides, as typed values: no I/O here."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


@dataclass(frozen=True)
class Recorded:
    """What a cloud's state directory says it made on this host."""

    state_dir: str
    network_ids: frozenset[str] = frozenset()  # the network database's and dhcp/'s
    port_ids: frozenset[str] = frozenset()
    mapped_bridges: frozenset[str] = frozenset()  # bridge_mappings: maybe the operator's
    created_bridges: frozenset[str] = frozenset()  # made by the cloud (host_bridges marker)
    added_addresses: frozenset[tuple[str, str]] = frozenset()  # (device, cidr) it added
    instances_path: str = ""


@dataclass(frozen=True)
class Process:
    pid: int
    argv: tuple[str, ...]


@dataclass(frozen=True)
class Device:
    """A network device of the host's own namespace."""

    name: str
    kind: str | None  # "veth", "bridge", "tun", "openvswitch"... None for plain ones
    master: str | None


@dataclass(frozen=True)
class OvsPort:
    name: str
    bridge: str
    iface_id: str  # external_ids:iface-id, "" when the port carries none


@dataclass(frozen=True)
class OvsFlows:
    """The cookies of a bridge's flows, and the names of its ports (for foreign cookies)."""

    bridge: str
    cookies: frozenset[int]
    ports: frozenset[str]


@dataclass(frozen=True)
class NftTable:
    family: str
    name: str
    taps: frozenset[str]  # the taps its port chains filter


@dataclass(frozen=True)
class Domain:
    name: str
    uuid: str
    paths: tuple[str, ...]  # every file its definition names (disks, consoles, logs)


@dataclass(frozen=True)
class HostView:
    """What the host has now, whoever made it."""

    namespaces: frozenset[str] = frozenset()
    processes: tuple[Process, ...] = ()
    devices: tuple[Device, ...] = ()
    addresses: tuple[tuple[str, str], ...] = ()  # (device, cidr) of the recorded devices
    ovs_bridges: frozenset[str] = frozenset()
    ovs_ports: tuple[OvsPort, ...] = ()
    ovs_flows: tuple[OvsFlows, ...] = ()
    nft_tables: tuple[NftTable, ...] = ()
    domains: tuple[Domain, ...] = ()
    instance_dirs: tuple[str, ...] = ()  # guest directories under the instances path
    dhcp_dirs: tuple[str, ...] = ()  # the DHCP agent's network directories


class Kind(Enum):
    """What one removal takes away, in the order purge removes things."""

    DOMAIN = "domain"
    PROCESS = "process"
    FLOWS = "flows"
    ADDRESS = "address"
    OVS_PORT = "ovs-port"
    DEVICE = "device"
    NAMESPACE = "namespace"
    NFT_TABLE = "nftables-table"
    OVS_BRIDGE = "ovs-bridge"
    BRIDGE = "bridge"
    DIRECTORY = "directory"


@dataclass(frozen=True)
class Removal:
    kind: Kind
    name: str  # a domain, pid, "bridge match", "device cidr", device, namespace, table, path
    why: str = ""  # what marks it as the cloud's

    def line(self, *, done: bool) -> str:
        verb = "removed" if done else "would remove"
        return f"{verb} {self.kind.value} {self.name} ({self.why})"
