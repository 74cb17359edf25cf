"""Fake guest taps: veth pairs whose outer end is an OVS port marked as libvirt marks a tap.

The L2 agent finds a guest's tap by ``external_ids:iface-id`` (the network
service's port id) and ``attached-mac``; a veth end added to the bridge with
those is, to the agent, a guest. The inner end goes into a namespace of ours
(``ip link add ... netns`` needs one), where it can stay silent or carry an
address. Names are ``sx`` + the caller's unique prefix, so nothing here can
touch another test's devices.
"""

from __future__ import annotations

from dataclasses import dataclass

from saphira.privsep import links, netns, ovs
from saphira.privsep.runner import run

INNER = "eth0"  # the inner end's name inside a namespace of its own


@dataclass(frozen=True)
class Tap:
    outer: str  # the OVS port, on the host
    inner: str  # the "guest's" end, inside ``namespace``
    namespace: str
    port_id: str
    mac: str


def plug(bridge: str, tap: Tap, *, ip_cidr: str | None = None) -> None:
    """Create the pair, bring both ends up and add the outer end to ``bridge``.

    With ``ip_cidr`` the inner end gets that address and TX checksum offload
    off (the userspace datapath forwards the unfilled checksums otherwise).
    """
    links.create_veth(tap.outer, tap.inner, peer_namespace=tap.namespace, peer_mac=tap.mac)
    links.set_up(tap.outer)
    links.set_up(tap.inner, namespace=tap.namespace)
    if ip_cidr is not None:
        links.add_address(tap.inner, ip_cidr, namespace=tap.namespace)
        links.disable_tx_offload(tap.inner, namespace=tap.namespace)
    ovs.add_port(bridge, tap.outer, iface_id=tap.port_id, mac=tap.mac, vlan=None)


def unplug(tap: Tap) -> None:
    """Idempotent: the OVS port and the pair (deleting one end removes both)."""
    ovs.delete_port(tap.outer)
    links.delete(tap.outer)


def leftovers(prefix: str) -> list[str]:
    """Namespaces, links and bridges whose name holds ``prefix``: what cleaning missed."""
    found = [name for name in netns.names() if prefix in name]
    found += [link.name for link in links.all_links() if prefix in link.name]
    found += [name for name in run(["ovs-vsctl", "list-br"]).split() if prefix in name]
    return found


def remove_namespaces(prefix: str) -> None:
    for name in netns.names():
        if prefix in name:
            netns.delete(name)
