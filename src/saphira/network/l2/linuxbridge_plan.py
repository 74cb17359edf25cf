"""What the Linux bridges must look like for the desired ports, as steps from what is there.

A flat network uses its physical network's mapped bridge. A VLAN network
gets, as with Neutron's linuxbridge agent, a bridge of its own
(``brq<network id[:11]>``) joined by an 802.1Q device on the mapped bridge
(``<bridge>.<vid>``), so the mapped bridge carries the VLAN tagged to its
uplink and the network's taps see plain frames. (Bridge VLAN filtering
would need fewer devices, but taps plugged by libvirt would land on the
bridge's default VLAN, the flat network, until the agent retagged them; a
per-VLAN bridge keeps them apart from the start, when the port's
``binding:vif_details`` name it (``vlan_bridge``) as Neutron's do. Some
kernels, this test host's among them, have neither 802.1Q devices nor VLAN
filtering: VLAN ports then fail with the kernel's answer, flat ones work.)

Taps are ``tap<port id[:11]>`` as Nova names them: libvirt usually enslaves
them already, the plan moves one that is elsewhere. Pure: the caller lists
the host, this module decides.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from saphira.network.l2.errors import L2Error
from saphira.network.l2.nft_ruleset import TAP_PREFIX, tap_name
from saphira.objects.network import PortDetails
from saphira.privsep.links import Link

VLAN_BRIDGE_PREFIX = "brq"
MAX_NAME = 15


@dataclass(frozen=True)
class Step:
    action: str  # create_bridge, create_vlan, delete, set_master, set_up, set_mtu
    args: tuple[str | int, ...]
    owner: str  # a bridge or a port id: a failed step skips its owner's later steps
    needs: str = ""  # the bridge a port's step relies on: skipped if that bridge failed


@dataclass(frozen=True)
class Vlan:
    device: str
    lower: str  # the mapped bridge
    vid: int


@dataclass
class Plan:
    steps: list[Step] = field(default_factory=list)
    bridges: set[str] = field(default_factory=set)  # ours: mapped ones and VLAN bridges in use
    users: dict[str, list[str]] = field(default_factory=dict)  # bridge -> port ids on it
    present: dict[str, str] = field(default_factory=dict)  # port id -> tap, taps that exist
    missing: list[str] = field(default_factory=list)  # no tap on this host (yet)
    failed: dict[str, str] = field(default_factory=dict)
    isolated: list[str] = field(default_factory=list)  # taps on our bridges nobody asked for


def vlan_bridge(network_id: str) -> str:
    return VLAN_BRIDGE_PREFIX + network_id[:11]


def vlan_device(lower: str, vid: int) -> str:
    """``<lower>.<vid>``, or a digest of ``lower`` where that is too long for Linux."""
    name = f"{lower}.{vid}"
    if len(name) <= MAX_NAME:
        return name
    return f"vl{hashlib.sha1(lower.encode()).hexdigest()[:8]}.{vid}"


def target_of(port: PortDetails, mappings: Mapping[str, str]) -> tuple[str, Vlan | None]:
    """The bridge the port's tap belongs in, and the VLAN device feeding it (if any)."""
    segment = port.segment
    lower = mappings.get(segment.physical_network)
    if lower is None:
        raise L2Error(detail=f"no bridge mapped for physical network {segment.physical_network}")
    if segment.network_type == "flat":
        return lower, None
    if segment.network_type == "vlan" and segment.segmentation_id is not None:
        vid = segment.segmentation_id
        return vlan_bridge(port.network_id), Vlan(vlan_device(lower, vid), lower, vid)
    raise L2Error(detail=f"network type {segment.network_type} is not supported on a Linux bridge")


def plan(
    desired: Sequence[PortDetails],
    links: Mapping[str, Link],
    vlans: Mapping[str, tuple[str, int]],
    mappings: Mapping[str, str],
) -> Plan:
    """Steps in order: mapped bridges, VLAN devices and bridges, taps, leftovers removed."""
    return _Planner(links, vlans, mappings).run(desired)


class _Planner:
    def __init__(
        self,
        links: Mapping[str, Link],
        vlans: Mapping[str, tuple[str, int]],
        mappings: Mapping[str, str],
    ) -> None:
        self.links, self.vlans, self.mappings = links, vlans, mappings
        self.result = Plan(bridges=set(mappings.values()))
        self.broken: dict[str, str] = {}  # bridge -> why no port can use it
        self.bridge_steps: list[Step] = []
        self.vlan_steps: list[Step] = []
        self.tap_steps: list[Step] = []

    def run(self, desired: Sequence[PortDetails]) -> Plan:
        for name in sorted(self.result.bridges):
            if why := self._bridge(self.bridge_steps, name):
                self.broken[name] = why
        for port in desired:
            try:
                bridge = self._place(port)
            except L2Error as error:
                self.result.failed[port.port_id] = error.message
                continue
            self.result.users.setdefault(bridge, []).append(port.port_id)
            self._tap(port, bridge, self.links.get(tap_name(port.port_id)))
        leftovers = self._leftovers({tap_name(port.port_id) for port in desired})
        self.result.steps = [*self.bridge_steps, *self.vlan_steps, *self.tap_steps, *leftovers]
        return self.result

    def _place(self, port: PortDetails) -> str:
        """The port's bridge, planning its VLAN bridge the first time; L2Error if unusable."""
        bridge, vlan = target_of(port, self.mappings)
        if vlan is not None and bridge not in self.result.bridges:
            self.result.bridges.add(bridge)
            self._vlan(vlan, bridge)
        why = self.broken.get(bridge) or (vlan and self.broken.get(vlan.lower))
        if why:
            raise L2Error(detail=why)
        return bridge

    def _bridge(self, steps: list[Step], name: str) -> str:
        """Steps making bridge ``name`` exist and be up; a reason if it cannot be ours."""
        link = self.links.get(name)
        if link is None:
            steps += [Step("create_bridge", (name,), name), Step("set_up", (name,), name)]
        elif link.kind != "bridge":
            return f"{name} is a {link.kind or 'plain'} device, not a Linux bridge"
        elif not link.up:
            steps.append(Step("set_up", (name,), name))
        return ""

    def _vlan(self, vlan: Vlan, bridge: str) -> None:
        """The 802.1Q device first: where the kernel cannot make one, no empty bridge is left."""
        steps: list[Step] = []
        device = self.links.get(vlan.device)
        if device is None or self.vlans.get(vlan.device) != (vlan.lower, vlan.vid):
            if device is not None:
                steps.append(Step("delete", (vlan.device,), bridge))
            steps.append(Step("create_vlan", (vlan.device, vlan.lower, vlan.vid), bridge))
            device = None
        if why := self._bridge(steps, bridge):
            self.broken[bridge] = why
            return
        if device is None or device.master != bridge:
            steps.append(Step("set_master", (vlan.device, bridge), bridge))
        if device is None or not device.up:
            steps.append(Step("set_up", (vlan.device,), bridge))
        self.vlan_steps += steps

    def _tap(self, port: PortDetails, bridge: str, link: Link | None) -> None:
        if link is None:
            self.result.missing.append(port.port_id)
            return
        self.result.present[port.port_id] = link.name
        steps = []
        if link.master != bridge:
            steps.append(Step("set_master", (link.name, bridge), port.port_id, bridge))
        if link.mtu != port.segment.mtu:
            steps.append(Step("set_mtu", (link.name, port.segment.mtu), port.port_id, bridge))
        if not link.up:
            steps.append(Step("set_up", (link.name,), port.port_id, bridge))
        self.tap_steps += steps

    def _leftovers(self, known: set[str]) -> list[Step]:
        """Isolate unexplained taps on our bridges; remove VLAN bridges no port needs.

        A VLAN bridge is ours when an 802.1Q device on one of our mapped
        bridges feeds it; one that still holds a tap stays (the tap is isolated).
        """
        mapped = set(self.mappings.values())
        feeds = {
            link.master: name
            for name, (lower, _) in self.vlans.items()
            if lower in mapped and (link := self.links.get(name)) is not None and link.master
        }
        ours = self.result.bridges | set(feeds)
        taps = [
            link
            for link in self.links.values()
            if link.name.startswith(TAP_PREFIX) and link.master in ours
        ]
        self.result.isolated = sorted(link.name for link in taps if link.name not in known)
        steps = []
        for bridge in sorted(set(feeds) - self.result.bridges):
            if not any(link.master == bridge for link in taps):
                steps += [
                    Step("delete", (feeds[bridge],), bridge),
                    Step("delete", (bridge,), bridge),
                ]
        return steps
