"""Layer 3: the server is ACTIVE, no task in progress, its guest running."""

from __future__ import annotations

from saphira.verify.facts import RUNNING, Server
from saphira.verify.model import Check

POWER_STATES = {0: "NOSTATE", 1: "Running", 3: "Paused", 4: "Shutdown", 6: "Crashed",
                7: "Suspended"}  # fmt: skip


def check(server: Server) -> Check:
    power = POWER_STATES.get(server.power_state or 0, str(server.power_state))
    seen = f"status {server.status}, task_state {server.task_state}, power_state {power}"
    if server.status == "ERROR":
        return Check(False, f"{seen}; fault: {server.fault or 'none recorded'}")
    if server.status != "ACTIVE" or server.task_state is not None:
        return Check(False, seen)
    if server.power_state is not None and server.power_state != RUNNING:
        return Check(False, seen)
    return Check(True, seen)
