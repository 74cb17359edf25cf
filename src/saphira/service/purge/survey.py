"""What the host has now, read through the privileged helper (and libvirt for guests).

Only listing happens here; ``plan`` decides what of it is the cloud's. A
part of the host that cannot be asked (Open vSwitch or libvirtd not
running) has nothing of the cloud's to remove: it is read as empty.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

from saphira.exception import SaphiraError
from saphira.network.dhcp.files import served_networks
from saphira.network.l2.linuxbridge import tap_of
from saphira.network.l2.nft_ruleset import TABLE
from saphira.privsep import links, netns, nft, ovs
from saphira.privsep.validate import TABLE_FAMILIES
from saphira.service.purge.model import (
    Device,
    Domain,
    HostView,
    NftTable,
    OvsFlows,
    OvsPort,
    Process,
    Recorded,
)
from saphira.service.purge.recorded import dhcp_root

_UUID_DIR = re.compile(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}(_resize)?")
_COOKIE = re.compile(r"cookie=(0x[0-9a-f]+)")
_PATH_ATTRIBUTES = ("file", "path", "dir")


def survey(recorded: Recorded, libvirt_uri: str) -> HostView:
    bridges = _ovs_bridges(recorded.mapped_bridges | recorded.created_bridges)
    devices = links.all_links()
    return HostView(
        namespaces=frozenset(netns.names()),
        processes=tuple(processes()),
        devices=tuple(Device(d.name, d.kind, d.master) for d in devices),
        addresses=tuple(_addresses(recorded, {d.name for d in devices})),
        ovs_bridges=frozenset(bridges),
        ovs_ports=tuple(port for bridge in sorted(bridges) for port in _ovs_ports(bridge)),
        ovs_flows=tuple(_ovs_flows(bridge) for bridge in sorted(bridges)),
        nft_tables=tuple(_nft_tables()),
        domains=tuple(domains(libvirt_uri)),
        instance_dirs=tuple(_instance_dirs(recorded.instances_path)),
        dhcp_dirs=tuple(str(dhcp_root(recorded.state_dir) / n) for n in
                        served_networks(dhcp_root(recorded.state_dir))),
    )  # fmt: skip


def _addresses(recorded: Recorded, present: set[str]) -> list[tuple[str, str]]:
    devices = sorted({device for device, _ in recorded.added_addresses} & present)
    return [(device, cidr) for device in devices for cidr in links.addresses(device)]


def processes() -> list[Process]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                raw = (entry / "cmdline").read_bytes()
                if raw:
                    argv = raw.decode(errors="replace").split("\0")[:-1]
                    found.append(Process(int(entry.name), tuple(argv)))
    return found


def _ovs_bridges(names: frozenset[str]) -> list[str]:
    if shutil.which("ovs-vsctl") is None:
        return []
    try:
        return [name for name in sorted(names) if ovs.bridge(name) is not None]
    except SaphiraError:  # ovsdb-server not running: no bridge to look at
        return []


def _ovs_ports(bridge: str) -> list[OvsPort]:
    return [
        OvsPort(i.name, bridge, i.external_ids.get("iface-id", "")) for i in ovs.interfaces(bridge)
    ]


def _ovs_flows(bridge: str) -> OvsFlows:
    cookies = {int(m[1], 16) for line in ovs.dump_flows(bridge) if (m := _COOKIE.search(line))}
    ports = {interface.name for interface in ovs.interfaces(bridge)}
    return OvsFlows(bridge, frozenset(cookies), frozenset(ports))


def _nft_tables() -> list[NftTable]:
    found = []
    for family in TABLE_FAMILIES:
        listed = nft.list_table(family, TABLE)
        if listed is not None:
            chains = [item["chain"]["name"] for item in listed if "chain" in item]
            found.append(NftTable(family, TABLE, frozenset(filter(None, map(tap_of, chains)))))
    return found


def domains(uri: str) -> list[Domain]:
    import libvirt  # only where guests are looked for: hosts without it import nothing

    try:
        conn = libvirt.open(uri)
    except libvirt.libvirtError:  # libvirtd not running: it holds no guest
        return []
    found = []
    try:
        for dom in conn.listAllDomains(0):
            with contextlib.suppress(libvirt.libvirtError):  # undefined since it was listed
                found.append(Domain(dom.name(), dom.UUIDString(), _paths(dom.XMLDesc(0))))
    finally:
        conn.close()
    return found


def _paths(xml: str) -> tuple[str, ...]:
    return tuple(
        value
        for element in ET.fromstring(xml).iter()
        for key, value in element.attrib.items()
        if key in _PATH_ATTRIBUTES and value.startswith("/")
    )


def _instance_dirs(instances_path: str) -> list[str]:
    root = Path(instances_path)
    if not root.is_dir():
        return []
    return sorted(str(e) for e in root.iterdir() if e.is_dir() and _UUID_DIR.fullmatch(e.name))
