"""The read-only planning facts: what the guide's first commands show, parsed.

Everything comes through a ``Runner`` (``ip -j``, ``lsblk -J``, ``uname``)
and ``/proc/meminfo``; nothing here changes the machine. ``parse_*`` are pure
functions of the commands' JSON, so tests feed them canned output.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from saphira.join.runner import Runner

MEMINFO = Path("/proc/meminfo")


@dataclass(frozen=True)
class Link:
    name: str
    state: str  # operstate: UP, DOWN, UNKNOWN
    mac: str
    kind: str  # "" for a physical-looking NIC, else veth, bridge, openvswitch...


@dataclass(frozen=True)
class Disk:
    name: str
    size_bytes: int
    kind: str


@dataclass(frozen=True)
class DefaultRoute:
    interface: str
    gateway: str


@dataclass(frozen=True)
class Memory:
    total_kib: int
    available_kib: int


@dataclass(frozen=True)
class Facts:
    architecture: str
    memory: Memory
    disks: tuple[Disk, ...]
    links: tuple[Link, ...]
    default_route: DefaultRoute | None
    first_ipv4: str | None  # this host's first global IPv4 address: my_ip


def _json(text: str) -> list[dict[str, Any]]:
    try:
        data = json.loads(text or "[]")
    except ValueError:
        return []
    return [item for item in data if isinstance(item, dict)] if isinstance(data, list) else []


def parse_links(text: str) -> tuple[Link, ...]:
    """``ip -j -d link show``: every link but loopback."""
    links = []
    for item in _json(text):
        if item.get("link_type") == "loopback" or item.get("ifname") == "lo":
            continue
        kind = str(item.get("linkinfo", {}).get("info_kind", ""))
        state = str(item.get("operstate", "UNKNOWN"))
        links.append(Link(str(item["ifname"]), state, str(item.get("address", "")), kind))
    return tuple(links)


def parse_default_route(text: str) -> DefaultRoute | None:
    """``ip -j route show default``: the first default route."""
    for item in _json(text):
        if "dev" in item:
            return DefaultRoute(str(item["dev"]), str(item.get("gateway", "")))
    return None


def parse_first_ipv4(text: str) -> str | None:
    """``ip -j -4 addr show scope global``: the first global IPv4 address."""
    for item in _json(text):
        for info in item.get("addr_info", []):
            if info.get("family") == "inet" and info.get("scope") == "global":
                return str(info["local"])
    return None


def parse_disks(text: str) -> tuple[Disk, ...]:
    """``lsblk -J -b -d -o NAME,SIZE,TYPE``: whole disks."""
    try:
        devices = json.loads(text or "{}").get("blockdevices", [])
    except (ValueError, AttributeError):
        return ()
    return tuple(
        Disk(str(d["name"]), int(d.get("size") or 0), str(d.get("type", "")))
        for d in devices
        if d.get("type") in ("disk", "nvme", "mpath", "raid", "lvm")
    )


def parse_meminfo(text: str) -> Memory:
    values: dict[str, int] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            values[key] = int(parts[0])
    return Memory(values.get("MemTotal", 0), values.get("MemAvailable", 0))


def gather(runner: Runner, meminfo: Path = MEMINFO) -> Facts:
    """The host's facts; only reads (the runner may be ``ReadOnly``)."""
    try:
        memory = parse_meminfo(meminfo.read_text())
    except OSError:
        memory = Memory(0, 0)
    return Facts(
        architecture=runner.run(["uname", "-m"]).stdout.strip(),
        memory=memory,
        disks=parse_disks(runner.run(["lsblk", "-J", "-b", "-d", "-o", "NAME,SIZE,TYPE"]).stdout),
        links=parse_links(runner.run(["ip", "-j", "-d", "link", "show"]).stdout),
        default_route=parse_default_route(
            runner.run(["ip", "-j", "route", "show", "default"]).stdout
        ),
        first_ipv4=parse_first_ipv4(
            runner.run(["ip", "-j", "-4", "addr", "show", "scope", "global"]).stdout
        ),
    )
