"""Layer 4: each of the server's ports is bound on the server's host and ACTIVE.

The binding fields are admin-only by default; without them the port's status (ACTIVE
only once the L2 agent wired it) is what a member can check."""

from __future__ import annotations

from collections.abc import Sequence

from saphira.verify.facts import Port, Server
from saphira.verify.model import Check, each

FAILED_VIF_TYPES = ("binding_failed", "unbound")


def _port(server: Server, port: Port) -> Check:
    name = f"port {port.id} ({port.mac})"
    if port.vif_type in FAILED_VIF_TYPES:
        return Check(False, f"{name}: binding:vif_type {port.vif_type} on "
                     f"{port.host_id or 'no host'}")  # fmt: skip
    if port.host_id is not None and server.host is not None and port.host_id != server.host:
        return Check(False, f"{name}: bound on {port.host_id}, the server is on {server.host}")
    if port.status != "ACTIVE":
        return Check(False, f"{name}: status {port.status}")
    where = f"bound on {port.host_id} ({port.vif_type})" if port.host_id else "binding hidden"
    return Check(True, f"{name}: ACTIVE, {where}")


def check(server: Server, ports: Sequence[Port]) -> Check:
    if not ports:
        return Check(False, "the server has no port")
    return each(_port(server, port) for port in ports)
