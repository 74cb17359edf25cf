"""Services and compute nodes as the API shows them: read by the service layer
(``saphira.computesvc.hosts``), each service's up/down derived here from its
last heartbeat against [DEFAULT] service_down_time.
"""

from __future__ import annotations

from saphira.api.compute.app import Call
from saphira.computesvc import Cell
from saphira.computesvc import hosts as store
from saphira.computesvc.hosts import HostService, Node, Service, utcnow

__all__ = ["HostService", "Node", "utcnow"]

COMPUTE_BINARY = "nova-compute"
# Said in disabled_reason: tempest's schemas allow no field of our own, and an
# unmapped host is one the scheduler cannot use, whatever its status says.
UNMAPPED = "not mapped to a cell: run saphira-manage cell_v2 discover_hosts"


def is_up(call: Call, service: Service) -> bool:
    if service.forced_down:
        return False
    seen = service.last_seen_up or service.updated_at or service.created_at
    if seen is None:
        return False
    return (utcnow() - seen).total_seconds() <= int(call.state.conf.service_down_time)


def zone(call: Call, service: Service) -> str:
    conf = call.state.conf
    if service.binary == COMPUTE_BINARY:
        return str(conf.default_availability_zone)
    return str(conf.internal_service_availability_zone)


def mapped_hosts(call: Call) -> dict[str, str]:
    """Host -> the uuid of the cell its host mapping names."""
    return store.mapped_hosts(call.svc)


def disabled_reason(service: Service, cell: Cell, mapped: dict[str, str]) -> str | None:
    """The row's reason, plus UNMAPPED for a compute host the scheduler cannot see
    (no host mapping, or one naming another cell): never silently ignored."""
    reason = service.disabled_reason
    if service.binary != COMPUTE_BINARY or mapped.get(service.host) == cell.uuid:
        return reason
    return f"{reason}; {UNMAPPED}" if reason else UNMAPPED


def services(call: Call, host: str | None = None) -> list[HostService]:
    """Every service, or with ``host`` those on that host (see ``store.services``)."""
    return store.services(call.svc, host)


def nodes(call: Call) -> list[Node]:
    return store.nodes(call.svc)
