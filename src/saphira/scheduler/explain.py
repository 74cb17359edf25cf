"""Why no host fits: per host, the filter or the resource that said no.

Hosts placement left out of its candidates are explained against their own
inventory and usage (saphira.domain.sizing.refusals), read from placement
only on this failure path, so a successful decision pays nothing for it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from saphira import exception
from saphira.domain import sizing
from saphira.scheduler.host_state import HostState


class InventoryReader(Protocol):
    def get_inventories(self, provider_uuid: str) -> dict[str, dict[str, Any]]: ...

    def usages(self, provider_uuid: str) -> dict[str, int]: ...


def label(host: HostState) -> str:
    return host.host if host.node == host.host else f"{host.host} (node {host.node})"


def _inventory(record: Mapping[str, Any]) -> sizing.Inventory:
    return sizing.Inventory(
        total=int(record["total"]),
        reserved=int(record.get("reserved", 0)),
        min_unit=int(record.get("min_unit", 1)),
        max_unit=int(record["max_unit"]) if record.get("max_unit") is not None else None,
        step_size=int(record.get("step_size", 1)),
        allocation_ratio=float(record.get("allocation_ratio", 1.0)),
    )


def placement_refusal(placement: InventoryReader, host: HostState, wanted: dict[str, int]) -> str:
    """Which resource class is short on ``host``, in sizing's words."""
    try:
        records = placement.get_inventories(host.uuid)
        used = placement.usages(host.uuid)
    except exception.NotFound:
        return "placement: no resource provider (the compute agent has not reported yet)"
    except exception.SaphiraError as error:
        return f"placement: excluded; its inventory could not be read ({error.message})"
    inventory = {rc: _inventory(record) for rc, record in records.items()}
    refusals = sizing.refusals(inventory, used, wanted)
    if not refusals:
        return "placement: excluded (traits or aggregates), although its resources fit"
    return "; ".join(f"placement: {rc} {why}" for rc, why in sorted(refusals.items()))


def no_valid_host(reasons: Mapping[str, str], total: int) -> exception.NoValidHost:
    """Every host and why (``reason``, for admins) and the same without hosts
    (``summary``, for everyone: ``NoValidHost.public_message``)."""
    if not total:
        return exception.NoValidHost(
            reason="There are no compute nodes in any cell (is a compute agent running?).",
            summary="There are no compute nodes in any cell.",
        )
    parts = [f"{host}: {why}" for host, why in sorted(reasons.items())]
    return exception.NoValidHost(
        reason=f"{total} compute node(s), none fits: " + " | ".join(parts),
        summary=summary(reasons.values()),
    )


_SHORT_OF = re.compile(r"placement: ([A-Z][A-Z0-9_]*) ")


def summary(whys: Iterable[str]) -> str:
    """Which resource classes were short and which filters refused, and nothing
    else: no host's name, state, zone or capacity (what a member may read)."""
    short: set[str] = set()
    refused: set[str] = set()
    placement = False
    for why in whys:
        head, colon, _ = why.partition(": ")
        if head == "placement":
            placement = True
            short.update(_SHORT_OF.findall(why))
        elif colon and head.endswith("Filter"):
            refused.add(head)
    parts = []
    if short or placement:
        parts.append(f"not enough {', '.join(sorted(short)) or 'resources'}")
    if refused:
        parts.append(f"refused by {', '.join(sorted(refused))}")
    if not parts:
        return "There are not enough hosts available."
    return f"There are not enough hosts available: {'; '.join(parts)}."


def explain_excluded(
    placement: InventoryReader,
    excluded: Iterable[HostState],
    wanted: dict[str, int],
    reasons: dict[str, str],
) -> None:
    for host in excluded:
        reasons[label(host)] = placement_refusal(placement, host, wanted)
