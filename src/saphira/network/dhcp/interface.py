"""Plugging a DHCP port: a veth from the network's bridge into the ``qdhcp-`` namespace.

Both ends are named ``tap<port id[:11]>``: the inner one carries the port's
MAC and addresses, the outer one joins the bridge the L2 side chose, either
as an OVS port tagged with the port id (so the L2 agent wires and filters it
as it does a guest's tap) or enslaved to a Linux bridge.
"""

from __future__ import annotations

import abc
import dataclasses
import logging

from saphira.network.dhcp.errors import DhcpError
from saphira.privsep import links, netns, ovs

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Plug:
    namespace: str
    device: str
    port_id: str
    mac: str
    mtu: int
    addresses: tuple[str, ...]  # "ip/prefixlen"
    bridge: str
    vlan: int | None = None  # the access tag on OVS; a Linux bridge is per VLAN already


class InterfaceDriver(abc.ABC):
    def plug(self, plug: Plug) -> bool:
        """Make the host match ``plug``; True if the device or its addresses had to change.

        A True answer means a running dnsmasq is bound to something stale
        and must be restarted.
        """
        if not netns.exists(plug.namespace):
            netns.create(plug.namespace)
        changed = self._ensure_veth(plug)
        self._attach(plug)
        return self._ensure_addresses(plug) or changed

    def unplug(self, namespace: str) -> None:
        """Remove every veth in the namespace (with its outer end), then the namespace."""
        if not netns.exists(namespace):
            return
        for link in links.all_links(namespace=namespace):
            if link.kind == "veth":
                self._detach(link.name)
                links.delete(link.name, namespace=namespace)
        netns.delete(namespace)

    def _ensure_veth(self, plug: Plug) -> bool:
        changed = self._remove_strays(plug)
        inner = links.show(plug.device, namespace=plug.namespace)
        if inner is None:
            links.delete(plug.device)  # a half-made pair from an interrupted plug
            links.create_veth(
                plug.device, plug.device, peer_namespace=plug.namespace, peer_mac=plug.mac
            )
            self._created(plug)
            inner, changed = links.show(plug.device, namespace=plug.namespace), True
        outer = links.show(plug.device)
        if inner is None or outer is None:
            raise DhcpError(detail=f"veth {plug.device} vanished while plugging {plug.namespace}")
        if inner.mac != plug.mac.lower():
            links.set_mac(plug.device, plug.mac, namespace=plug.namespace)
        for end, namespace in ((inner, plug.namespace), (outer, None)):
            if end.mtu != plug.mtu:
                links.set_mtu(plug.device, plug.mtu, namespace=namespace)
            if not end.up:
                links.set_up(plug.device, namespace=namespace)
        return changed

    def _remove_strays(self, plug: Plug) -> bool:
        """Veths left from an earlier DHCP port of this network."""
        strays = [
            link.name
            for link in links.all_links(namespace=plug.namespace)
            if link.kind == "veth" and link.name != plug.device
        ]
        for name in strays:
            LOG.info("removing stale DHCP device %s from %s", name, plug.namespace)
            self._detach(name)
            links.delete(name, namespace=plug.namespace)
        return bool(strays)

    def _ensure_addresses(self, plug: Plug) -> bool:
        have = set(links.addresses(plug.device, namespace=plug.namespace))
        want = set(plug.addresses)
        for cidr in sorted(have - want):
            links.delete_address(plug.device, cidr, namespace=plug.namespace)
        for cidr in sorted(want - have):
            links.add_address(plug.device, cidr, namespace=plug.namespace)
        return have != want

    @abc.abstractmethod
    def _created(self, plug: Plug) -> None:
        """Adjust a freshly made pair for this kind of bridge."""

    @abc.abstractmethod
    def _attach(self, plug: Plug) -> None:
        """Connect the outer end to ``plug.bridge`` (idempotent)."""

    @abc.abstractmethod
    def _detach(self, device: str) -> None:
        """Undo ``_attach`` for the outer end named ``device``, if present."""


class OvsInterface(InterfaceDriver):
    def _created(self, plug: Plug) -> None:
        # The userspace datapath forwards the checksums the veth left unfilled.
        links.disable_tx_offload(plug.device, namespace=plug.namespace)

    def _attach(self, plug: Plug) -> None:
        current = ovs.port_bridge(plug.device)
        if current not in (None, plug.bridge):
            ovs.delete_port(plug.device)
        ovs.add_port(plug.bridge, plug.device, iface_id=plug.port_id, mac=plug.mac, vlan=plug.vlan)

    def _detach(self, device: str) -> None:
        ovs.delete_port(device)


class BridgeInterface(InterfaceDriver):
    def _created(self, plug: Plug) -> None:
        """A Linux bridge forwards checksum-offloaded packets as they are: nothing to do."""

    def _attach(self, plug: Plug) -> None:
        outer = links.show(plug.device)
        if outer is not None and outer.master != plug.bridge:
            links.set_master(plug.device, plug.bridge)

    def _detach(self, device: str) -> None:
        """Deleting the veth takes it out of the bridge."""


DRIVERS: dict[str, type[InterfaceDriver]] = {"ovs": OvsInterface, "linuxbridge": BridgeInterface}


def interface_driver(kind: str) -> InterfaceDriver:
    try:
        return DRIVERS[kind]()
    except KeyError:
        raise DhcpError(
            detail=f"unknown interface driver {kind!r} (choose from {', '.join(DRIVERS)})"
        ) from None
