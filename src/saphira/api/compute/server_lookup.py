"""A server as the handlers see it: found through the service layer
(``saphira.computesvc.lookup``), then assembled into what the views show
(its fault, groups, security groups, pinned zone, host status)."""

from __future__ import annotations

from saphira.api.compute import hosts
from saphira.api.compute.app import Call
from saphira.api.compute.network_proxy import security_group_names
from saphira.api.compute.server_views import Shown
from saphira.computesvc import lookup
from saphira.computesvc.lookup import Located
from saphira.objects import Instance

__all__ = ["Located", "host_status", "host_statuses", "locate", "shown", "with_spec"]


def locate(call: Call, uuid: str, *, read_deleted: bool = False) -> Located:
    """The server, or InstanceNotFound (also for another project's server, as Nova)."""
    return lookup.locate(call.svc, uuid, read_deleted=read_deleted)


def with_spec(call: Call, shown: Shown, spec: lookup.Placement | None) -> Shown:
    if spec is not None:
        shown.pinned_az = spec.availability_zone
        shown.hints = dict(spec.scheduler_hints)
    return shown


def host_statuses(call: Call, host: str | None = None) -> dict[str, str]:
    """UP/DOWN/MAINTENANCE per compute host, read once per request (not per server);
    with ``host``, that host's alone (a show needs no other host's services)."""
    found: dict[str, str] = {}
    for entry in hosts.services(call, host):
        service = entry.service
        if service.binary.endswith("compute"):
            up = hosts.is_up(call, service)
            found[service.host] = "DOWN" if not up else "MAINTENANCE" if service.disabled else "UP"
    return found


def host_status(call: Call, instance: Instance, known: dict[str, str] | None = None) -> str:
    """The instance's host status; "" without a host, UNKNOWN for a host with no service."""
    if not instance.host:
        return ""
    found = known if known is not None else host_statuses(call, instance.host)
    return found.get(instance.host, "UNKNOWN")


def shown(call: Call, found: Located, *, with_host_status: bool = False) -> Shown:
    uuid = found.instance.uuid
    fault = lookup.fault_of(call.svc, found)
    status = host_status(call, found.instance) if with_host_status else ""
    view = Shown(found.instance, fault, status, lookup.groups_of(call.svc, [uuid]).get(uuid, ()))
    view.security_groups = security_group_names(call, [found.instance]).get(uuid, [])
    if call.at_least("2.96"):
        view = with_spec(call, view, lookup.specs_of(call.svc, [uuid]).get(uuid))
    return view
