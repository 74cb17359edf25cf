"""The MACs each network's dnsmasq has leased an address to, read from its lease file.

The DHCP agent reports them in its ``configurations`` (``leases``: network id -> MACs),
so an admin sees through the network API whether a port got its lease (``saphira
verify``'s lease layer); Neutron's agent reports no such thing."""

from __future__ import annotations

import time
from pathlib import Path

from saphira.network.dhcp.files import NetworkFiles, served_networks


def _macs(text: str, now: float) -> list[str]:
    """dnsmasq's lines are "EXPIRY MAC IP NAME CLIENT-ID"; EXPIRY 0 never expires."""
    macs = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[0].isdigit():
            expiry = int(fields[0])
            if expiry == 0 or expiry > now:
                macs.append(fields[1].lower())
    return sorted(set(macs))


def leased(root: Path, now: float | None = None) -> dict[str, list[str]]:
    """Every network served under ``root``; a network whose dnsmasq leased nothing yet
    maps to an empty list (its server runs: "no lease" rather than "no DHCP")."""
    moment = time.time() if now is None else now
    found = {}
    for network_id in served_networks(root):
        try:
            text = NetworkFiles.under(root, network_id).leases.read_text()
        except FileNotFoundError:
            text = ""
        found[network_id] = _macs(text, moment)
    return found
