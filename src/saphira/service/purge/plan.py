"""Which of the host's things are the cloud's: pure rules, one per kind of thing.

Each rule needs a marker the cloud left, never a name pattern alone:

* a guest is the cloud's when its definition names a file under the
  cloud's instances path, as are the UUID-named directories there;
* a dnsmasq or metadata proxy when its command line carries
  ``--pid-file=`` under the state directory's ``dhcp/`` (as the DHCP
  agent itself recognises them);
* a namespace when it is ``qdhcp-`` plus one of the cloud's network ids,
  a ``brq`` bridge when it is ``brq`` plus one of them, an 802.1Q device
  when it is enslaved to such a bridge (the Linux bridge agent's VLAN uplink
  ``<mapped bridge>.<vid>``, which deleting the bridge would leave);
* a tap or veth when it is ``tap`` plus the start of one of the cloud's
  port ids, an OVS port when its ``external_ids:iface-id`` is one of them
  (or its name is such a tap);
* a bridge when the cloud recorded making it (``host_bridges``); a mapped
  bridge it found (the operator's) stays, only the cloud's ports leave it,
  and the addresses it recorded adding (``host_addresses``: the provider
  network's gateway);
* flows on a bridge that stays when their cookie is one of the cloud's
  ports' (``ovs_pipeline.port_cookie``); the shared pipeline's flows too
  when, those gone, no other port's flows are left on the bridge;
* an nftables table (``saphira`` is the host's, shared by every Linux
  bridge agent) only when every tap it filters is the cloud's.
"""

from __future__ import annotations

import os

from saphira.network.dhcp import config
from saphira.network.l2 import ovs_pipeline
from saphira.network.l2.linuxbridge_plan import vlan_bridge
from saphira.network.l2.nft_ruleset import tap_name
from saphira.service.purge.model import HostView, Kind, Recorded, Removal


def plan(recorded: Recorded, host: HostView) -> list[Removal]:
    """Everything of the cloud the host still has, in removal order."""
    found = [
        *_domains(recorded, host),
        *_processes(recorded, host),
        *_flows(recorded, host),
        *_addresses(recorded, host),
        *_ovs_ports(recorded, host),
        *_devices(recorded, host),
        *_namespaces(recorded, host),
        *_nft_tables(recorded, host),
        *_bridges(recorded, host),
        *_directories(host),
    ]
    order = list(Kind)
    return sorted(found, key=lambda removal: (order.index(removal.kind), removal.name))


def taps(recorded: Recorded) -> frozenset[str]:
    return frozenset(tap_name(port_id) for port_id in recorded.port_ids)


def under(path: str, root: str) -> bool:
    return bool(root) and path.startswith(root.rstrip("/") + "/")


def _domains(recorded: Recorded, host: HostView) -> list[Removal]:
    why = f"files under {recorded.instances_path}"
    return [
        Removal(Kind.DOMAIN, domain.name, why)
        for domain in host.domains
        if any(under(path, recorded.instances_path) for path in domain.paths)
    ]


def _processes(recorded: Recorded, host: HostView) -> list[Removal]:
    if not recorded.state_dir:
        return []
    marker = f"--pid-file={os.path.join(recorded.state_dir, 'dhcp')}/"
    return [
        Removal(Kind.PROCESS, str(process.pid), f"{_program(process.argv)}, {marker}...")
        for process in host.processes
        if any(arg.startswith(marker) for arg in process.argv)
    ]


def _program(argv: tuple[str, ...]) -> str:
    if "-m" in argv[:-1]:
        return argv[argv.index("-m") + 1]
    return os.path.basename(argv[0]) if argv else "?"


def _flows(recorded: Recorded, host: HostView) -> list[Removal]:
    found = []
    ours = {ovs_pipeline.port_cookie(port_id) for port_id in recorded.port_ids}
    for flows in host.ovs_flows:
        if flows.bridge in recorded.created_bridges:
            continue  # the bridge goes, its flows with it
        mine = sorted(flows.cookies & ours)
        foreign = {ovs_pipeline.foreign_cookie(name) for name in flows.ports}
        others = {c for c in flows.cookies if ovs_pipeline.is_ours(c)} - ours - foreign
        if mine and others <= {ovs_pipeline.BASE_COOKIE}:
            match = f"cookie={ovs_pipeline.MARK:#x}/{ovs_pipeline.MARK_MASK:#x}"
            found.append(Removal(Kind.FLOWS, f"{flows.bridge} {match}", "no other port's left"))
        else:
            found += [
                Removal(
                    Kind.FLOWS, f"{flows.bridge} cookie={cookie:#x}/-1", "a port's of the cloud"
                )
                for cookie in mine
            ]
    return found


def _addresses(recorded: Recorded, host: HostView) -> list[Removal]:
    return [
        Removal(Kind.ADDRESS, f"{device} {cidr}", "added by the cloud to a bridge it found")
        for device, cidr in sorted(recorded.added_addresses & set(host.addresses))
        if device not in recorded.created_bridges
    ]


def _ovs_ports(recorded: Recorded, host: HostView) -> list[Removal]:
    ours = taps(recorded)
    return [
        Removal(Kind.OVS_PORT, port.name, f"on {port.bridge}, iface-id {port.iface_id or '-'}")
        for port in host.ovs_ports
        if port.iface_id in recorded.port_ids or port.name in ours
    ]


def _devices(recorded: Recorded, host: HostView) -> list[Removal]:
    ours = taps(recorded)
    vlan_bridges = {vlan_bridge(network_id) for network_id in recorded.network_ids}
    found = []
    for device in host.devices:
        if device.name in ours and device.kind not in ("bridge", "openvswitch"):
            why = f"{device.kind or 'device'} of a cloud port"
            found.append(Removal(Kind.DEVICE, device.name, why))
        elif device.kind == "vlan" and device.master in vlan_bridges:
            found.append(Removal(Kind.DEVICE, device.name, f"802.1Q uplink of {device.master}"))
    return found


def _namespaces(recorded: Recorded, host: HostView) -> list[Removal]:
    ours = {config.namespace_name(network_id) for network_id in recorded.network_ids}
    return [
        Removal(Kind.NAMESPACE, name, "DHCP namespace of a network of the cloud")
        for name in sorted(host.namespaces & ours)
    ]


def _nft_tables(recorded: Recorded, host: HostView) -> list[Removal]:
    ours = taps(recorded)
    return [
        Removal(Kind.NFT_TABLE, f"{table.family}/{table.name}", "filters only the cloud's taps")
        for table in host.nft_tables
        if table.taps and table.taps <= ours
    ]


def _bridges(recorded: Recorded, host: HostView) -> list[Removal]:
    vlan_bridges = {vlan_bridge(network_id) for network_id in recorded.network_ids}
    found = [
        Removal(Kind.OVS_BRIDGE, name, "made by the cloud")
        for name in sorted(host.ovs_bridges & recorded.created_bridges)
    ]
    for device in host.devices:
        if device.kind != "bridge":
            continue
        if device.name in recorded.created_bridges:
            found.append(Removal(Kind.BRIDGE, device.name, "made by the cloud"))
        elif device.name in vlan_bridges:
            found.append(Removal(Kind.BRIDGE, device.name, "VLAN bridge of a network of the cloud"))
    return found


def _directories(host: HostView) -> list[Removal]:
    return [
        *(Removal(Kind.DIRECTORY, path, "a guest's files") for path in host.instance_dirs),
        *(Removal(Kind.DIRECTORY, path, "a DHCP server's files") for path in host.dhcp_dirs),
    ]
