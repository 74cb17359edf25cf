"""Network devices (veth pairs, addresses, offloads), optionally inside a namespace.

Every function takes ``namespace=None`` for the host's own namespace, so the
same calls wire both ends of a veth pair. The entry points (run in the
helper) return ``ip -j``'s text; ``show`` and ``all_links`` parse it here.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from saphira.privsep import validate
from saphira.privsep.context import entrypoint
from saphira.privsep.runner import run

_ns = validate.optional_namespace


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
    out = _show(name, namespace)
    entries: list[dict[str, Any]] = json.loads(out) if out.strip() else []
    return _link(entries[0]) if entries else None


@entrypoint
def _show(name: str, namespace: str | None) -> str:
    argv = ["ip", "-d", "-j", "link", "show", "dev", validate.device(name)]
    return run(argv, namespace=_ns(namespace), check=False)


def all_links(*, namespace: str | None = None) -> list[Link]:
    return [_link(entry) for entry in json.loads(_all(namespace))]


@entrypoint
def _all(namespace: str | None) -> str:
    return run(["ip", "-d", "-j", "link", "show"], namespace=_ns(namespace))


def _link(entry: dict[str, Any]) -> Link:
    return Link(
        name=entry["ifname"],
        mac=entry.get("address", ""),
        mtu=int(entry.get("mtu", 0)),
        up="UP" in entry.get("flags", []),
        master=entry.get("master"),
        kind=entry.get("linkinfo", {}).get("info_kind"),
    )


@entrypoint
def create_veth(name: str, peer: str, *, peer_namespace: str, peer_mac: str) -> None:
    """A veth pair: ``name`` here, ``peer`` (with ``peer_mac``) inside ``peer_namespace``.

    Both ends may carry the same name: they live in different namespaces.
    """
    peer_args = ["name", validate.device(peer), "address", validate.mac(peer_mac)]
    peer_args += ["netns", validate.namespace(peer_namespace)]
    run(["ip", "link", "add", validate.device(name), "type", "veth", "peer", *peer_args])


@entrypoint
def delete(name: str, *, namespace: str | None = None) -> None:
    """Idempotent; deleting either end of a veth removes both."""
    if _show(name, namespace).strip() not in ("", "[]"):
        run(["ip", "link", "delete", "dev", validate.device(name)], namespace=_ns(namespace))


@entrypoint
def set_up(name: str, *, namespace: str | None = None) -> None:
    run(["ip", "link", "set", "dev", validate.device(name), "up"], namespace=_ns(namespace))


@entrypoint
def set_mtu(name: str, mtu: int, *, namespace: str | None = None) -> None:
    value = str(validate.integer(mtu, 68, 65535, "MTU"))
    run(["ip", "link", "set", "dev", validate.device(name), "mtu", value], namespace=_ns(namespace))


@entrypoint
def set_mac(name: str, mac: str, *, namespace: str | None = None) -> None:
    argv = ["ip", "link", "set", "dev", validate.device(name), "address", validate.mac(mac)]
    run(argv, namespace=_ns(namespace))


@entrypoint
def set_master(name: str, bridge: str) -> None:
    """Enslave a host-side device to a Linux bridge."""
    run(["ip", "link", "set", "dev", validate.device(name), "master", validate.device(bridge)])


def addresses(name: str, *, namespace: str | None = None) -> list[str]:
    """The device's global addresses as ``ip/prefixlen`` (link-local ones are the kernel's)."""
    infos = [
        info
        for entry in json.loads(_addresses(name, namespace))
        for info in entry.get("addr_info", [])
    ]
    return [f"{i['local']}/{i['prefixlen']}" for i in infos if i.get("scope") == "global"]


def all_addresses(name: str, *, namespace: str | None = None) -> list[str]:
    """Every address of the device as ``ip/prefixlen``, link-local ones too."""
    return [
        f"{info['local']}/{info['prefixlen']}"
        for entry in json.loads(_addresses(name, namespace))
        for info in entry.get("addr_info", [])
    ]


@entrypoint
def _addresses(name: str, namespace: str | None) -> str:
    return run(["ip", "-j", "addr", "show", "dev", validate.device(name)], namespace=_ns(namespace))


@entrypoint
def add_address(name: str, cidr: str, *, namespace: str | None = None) -> None:
    """IPv6 addresses skip duplicate address detection: a tentative one cannot be bound."""
    cidr = validate.interface_address(cidr)
    argv = ["ip", "addr", "add", cidr, "dev", validate.device(name)]
    if ":" in cidr:
        argv.append("nodad")
    run(argv, namespace=_ns(namespace))


@entrypoint
def delete_address(name: str, cidr: str, *, namespace: str | None = None) -> None:
    argv = ["ip", "addr", "del", validate.interface_address(cidr), "dev", validate.device(name)]
    run(argv, namespace=_ns(namespace))


@entrypoint
def disable_tx_offload(name: str, *, namespace: str | None = None) -> None:
    """Needed on OVS's userspace datapath, which forwards packets with unfilled checksums."""
    run(["ethtool", "-K", validate.device(name), "tx", "off"], namespace=_ns(namespace))
