"""Network devices (veth pairs, addresses, offloads), optionally inside a namespace.

Every function takes ``namespace=None`` for the host's own namespace, so the
same calls wire both ends of a veth pair.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json
from typing import Any

from saphira.privsep.runner import run


@dataclasses.dataclass(frozen=True)
class Link:
    name: str
    mac: str
    mtu: int
    up: bool  # administratively up (the UP flag), whatever the carrier
    master: str | None  # the bridge it is enslaved to, if any
    kind: str | None  # "veth", "bridge", "openvswitch"... (None for plain devices)


def show(name: str, *, namespace: str | None = None) -> Link | None:
    """The device, or None when it does not exist (not an error: a probe)."""
    out = run(["ip", "-d", "-j", "link", "show", "dev", name], namespace=namespace, check=False)
    entries: list[dict[str, Any]] = json.loads(out) if out.strip() else []
    return _link(entries[0]) if entries else None


def all_links(*, namespace: str | None = None) -> list[Link]:
    out = run(["ip", "-d", "-j", "link", "show"], namespace=namespace)
    return [_link(entry) for entry in json.loads(out)]


def _link(entry: dict[str, Any]) -> Link:
    return Link(
        name=entry["ifname"],
        mac=entry.get("address", ""),
        mtu=int(entry.get("mtu", 0)),
        up="UP" in entry.get("flags", []),
        master=entry.get("master"),
        kind=entry.get("linkinfo", {}).get("info_kind"),
    )


def create_veth(name: str, peer: str, *, peer_namespace: str, peer_mac: str) -> None:
    """A veth pair: ``name`` here, ``peer`` (with ``peer_mac``) inside ``peer_namespace``.

    Both ends may carry the same name: they live in different namespaces.
    """
    peer_args = ["name", peer, "address", peer_mac, "netns", peer_namespace]
    run(["ip", "link", "add", name, "type", "veth", "peer", *peer_args])


def delete(name: str, *, namespace: str | None = None) -> None:
    """Idempotent; deleting either end of a veth removes both."""
    if show(name, namespace=namespace) is not None:
        run(["ip", "link", "delete", "dev", name], namespace=namespace)


def set_up(name: str, *, namespace: str | None = None) -> None:
    run(["ip", "link", "set", "dev", name, "up"], namespace=namespace)


def set_mtu(name: str, mtu: int, *, namespace: str | None = None) -> None:
    run(["ip", "link", "set", "dev", name, "mtu", str(mtu)], namespace=namespace)


def set_mac(name: str, mac: str, *, namespace: str | None = None) -> None:
    run(["ip", "link", "set", "dev", name, "address", mac], namespace=namespace)


def set_master(name: str, bridge: str) -> None:
    """Enslave a host-side device to a Linux bridge."""
    run(["ip", "link", "set", "dev", name, "master", bridge])


def addresses(name: str, *, namespace: str | None = None) -> list[str]:
    """The device's global addresses as ``ip/prefixlen`` (link-local ones are the kernel's)."""
    out = run(["ip", "-j", "addr", "show", "dev", name], namespace=namespace)
    infos = [info for entry in json.loads(out) for info in entry.get("addr_info", [])]
    return [f"{i['local']}/{i['prefixlen']}" for i in infos if i.get("scope") == "global"]


def add_address(name: str, cidr: str, *, namespace: str | None = None) -> None:
    """IPv6 addresses skip duplicate address detection: a tentative one cannot be bound."""
    argv = ["ip", "addr", "add", cidr, "dev", name]
    if ipaddress.ip_interface(cidr).version == 6:
        argv.append("nodad")
    run(argv, namespace=namespace)


def delete_address(name: str, cidr: str, *, namespace: str | None = None) -> None:
    run(["ip", "addr", "del", cidr, "dev", name], namespace=namespace)


def disable_tx_offload(name: str, *, namespace: str | None = None) -> None:
    """Needed on OVS's userspace datapath, which forwards packets with unfilled checksums."""
    run(["ethtool", "-K", name, "tx", "off"], namespace=namespace)
