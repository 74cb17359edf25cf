"""Layer 1: the server's hypervisor is up and mapped to a cell.

A compute host that was never discovered into a cell has no hypervisor in the API at
all (and builds end in "No valid host"); one that stopped reporting is down."""

from __future__ import annotations

from collections.abc import Sequence

from saphira.verify.facts import Hypervisor, Server
from saphira.verify.model import Check


def check(server: Server, hypervisors: Sequence[Hypervisor]) -> Check:
    if server.host is None:
        return _any_up(hypervisors)
    found = [h for h in hypervisors if server.host in (h.host, h.hostname)]
    if not found:
        return Check(False, f"host {server.host} has no hypervisor: not discovered into a cell")
    hypervisor = found[0]
    if hypervisor.state != "up":
        return Check(False, f"hypervisor {hypervisor.hostname} is {hypervisor.state}")
    if hypervisor.status != "enabled":
        return Check(False, f"hypervisor {hypervisor.hostname} is {hypervisor.status}")
    return Check(True, f"hypervisor {hypervisor.hostname} up and enabled")


def _any_up(hypervisors: Sequence[Hypervisor]) -> Check:
    """A server that never got a host (it failed scheduling): is there any host at all?"""
    up = [h.hostname for h in hypervisors if h.state == "up" and h.status == "enabled"]
    if not up:
        return Check(False, "the server has no host and no hypervisor is up and enabled")
    return Check(True, f"the server has no host; up and enabled: {', '.join(sorted(up))}")
