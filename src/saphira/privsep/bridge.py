"""Linux bridges and 802.1Q devices, and the bridge's hand-over to netfilter.

Generic link operations (show, enslave, up, MTU, delete) are in ``links``.
"""

from __future__ import annotations

import json
from pathlib import Path

from saphira.privsep import validate
from saphira.privsep.context import entrypoint
from saphira.privsep.runner import run

NETFILTER_SYSCTLS = ("net.bridge.bridge-nf-call-iptables", "net.bridge.bridge-nf-call-ip6tables")


@entrypoint
def create(name: str) -> None:
    run(["ip", "link", "add", "name", validate.device(name), "type", "bridge"])


@entrypoint
def create_vlan(name: str, lower: str, vid: int) -> None:
    """``name`` sends and receives ``lower``'s frames tagged ``vid``, untagged."""
    vlan = str(validate.integer(vid, 1, 4094, "VLAN id"))
    run(["ip", "link", "add", "link", validate.device(lower), "name", validate.device(name),
         "type", "vlan", "id", vlan])  # fmt: skip


def vlans() -> dict[str, tuple[str, int]]:
    """Every 802.1Q device on the host: ``{name: (lower device, VLAN id)}``."""
    out = _vlans()
    entries = json.loads(out) if out.strip() else []
    # iproute2 6.1 prints an empty object for every link the type filter skips.
    return {
        entry["ifname"]: (entry.get("link", ""), int(entry["linkinfo"]["info_data"]["id"]))
        for entry in entries
        if "ifname" in entry
    }


def netfilter_calls() -> dict[str, str | None]:
    """The br_netfilter switches (None: br_netfilter is not loaded); reading needs no root."""
    found: dict[str, str | None] = {}
    for key in NETFILTER_SYSCTLS:
        path = Path("/proc/sys", *key.split("."))
        found[key] = path.read_text().strip() if path.exists() else None
    return found


@entrypoint
def _vlans() -> str:
    return run(["ip", "-d", "-j", "link", "show", "type", "vlan"])


@entrypoint
def enable_netfilter_calls() -> None:
    """Bridged IPv4/IPv6 frames go through the IP hooks, where connection tracking is."""
    run(["sysctl", "-q", "-w", *(f"{key}=1" for key in NETFILTER_SYSCTLS)])
