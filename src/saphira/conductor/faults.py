"""What a failure says to whom: a fault's ``message`` is read by the project's
members, its ``details`` (as an event's ``traceback``) only by admins (Nova's
server view), so the names of hosts go into the details alone."""

from __future__ import annotations

from dataclasses import dataclass

from saphira import exception
from saphira.objects import BuildAttempt


@dataclass(frozen=True)
class FaultText:
    message: str  # everyone who sees the server
    details: str  # admins only


def of(error: Exception) -> FaultText:
    full = getattr(error, "message", None) or str(error)
    if isinstance(error, exception.NoValidHost):
        return FaultText(error.public_message, full)
    return FaultText(full, full)


def build_given_up(instance_uuid: str, tried: list[BuildAttempt], attempts: int) -> FaultText:
    """Every host tried failed the build: the count for members, the hosts for admins."""
    hosts = "; ".join(f"{t.host} ({t.reason or 'unknown'})" for t in tried)
    head = (
        f"Build of instance {instance_uuid} failed on every host tried "
        f"({len(tried)} of at most {attempts})"
    )
    return FaultText(f"{head}.", f"{head}: {hosts}")
