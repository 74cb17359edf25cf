"""/os-hypervisors: list, detail, show, statistics, search, servers (2.28 cpu_info
object, 2.33 paging, 2.53 UUID ids and hostname pattern instead of search and
servers, 2.88 no usage figures, uptime in show, no statistics)."""

from __future__ import annotations

import json
from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import hosts
from saphira.api.compute.app import Call, max_version, route
from saphira.api.compute.common import paging
from saphira.api.wsgi import json_response
from saphira.computesvc import hosts as store
from saphira.exception import BadRequest, MessagingTimeout, NotFound, NotImplementedHere


def _ident(call: Call, node: hosts.Node) -> Any:
    return node.node.uuid if call.at_least("2.53") else node.node.id


def _brief(call: Call, node: hosts.Node) -> dict[str, Any]:
    service = node.service
    up = service is not None and hosts.is_up(call, service)
    return {
        "id": _ident(call, node),
        "hypervisor_hostname": node.node.hypervisor_hostname,
        "state": "up" if up else "down",
        "status": "disabled" if service is not None and service.disabled else "enabled",
    }


def _cpu_info(call: Call, raw: str) -> Any:
    if not call.at_least("2.28"):
        return raw
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _usage(call: Call, node: hosts.Node) -> dict[str, Any]:
    """The resource figures 2.88 dropped (placement is where they live now)."""
    row = node.node
    return {
        "cpu_info": _cpu_info(call, row.cpu_info), "current_workload": 0,
        "disk_available_least": row.local_gb - row.local_gb_used,
        "free_disk_gb": row.local_gb - row.local_gb_used,
        "free_ram_mb": row.memory_mb - row.memory_mb_used,
        "local_gb": row.local_gb, "local_gb_used": row.local_gb_used,
        "memory_mb": row.memory_mb, "memory_mb_used": row.memory_mb_used,
        "running_vms": node.running_vms,
        "vcpus": row.vcpus, "vcpus_used": row.vcpus_used,
    }  # fmt: skip


def _detail(call: Call, node: hosts.Node, mapped: dict[str, str] | None = None) -> dict[str, Any]:
    row, service = node.node, node.service
    mapped = hosts.mapped_hosts(call) if mapped is None else mapped
    body = _brief(call, node)
    if not call.at_least("2.88"):
        body.update(_usage(call, node))
    body.update({
        "host_ip": row.host_ip,
        "hypervisor_type": row.hypervisor_type, "hypervisor_version": row.hypervisor_version,
        "service": {
            "host": row.host,
            "id": (service.uuid if call.at_least("2.53") else service.id) if service else None,
            "disabled_reason": (
                hosts.disabled_reason(service, node.cell, mapped) if service else None
            ),
        },
    })  # fmt: skip
    return body


def _listing(call: Call, *, detailed: bool) -> Response:
    found = hosts.nodes(call)
    pattern = call.request.args.get("hypervisor_hostname_pattern")
    if pattern is not None:
        if not call.at_least("2.53"):
            raise BadRequest("hypervisor_hostname_pattern requires microversion 2.53")
        found = [n for n in found if pattern in n.node.hypervisor_hostname]
        if not found:
            raise NotFound(f"No hypervisor matching '{pattern}' could be found.")
    body: dict[str, Any] = {}
    if call.at_least("2.33"):
        limit, marker = paging(call)
        if marker is not None:
            ids = [str(_ident(call, n)) for n in found]
            if marker not in ids:
                raise BadRequest(f"marker [{marker}] not found")
            found = found[ids.index(marker) + 1 :]
        more, found = len(found) > limit, found[:limit]
        if more and found:
            collection = "os-hypervisors/detail" if detailed else "os-hypervisors"
            body["hypervisors_links"] = call.next_link(collection, str(_ident(call, found[-1])))
    if detailed:
        mapped = hosts.mapped_hosts(call)
        body["hypervisors"] = [_detail(call, node, mapped) for node in found]
    else:
        body["hypervisors"] = [_brief(call, node) for node in found]
    return json_response(body)


def index(call: Call) -> Response:
    call.enforce("os_compute_api:os-hypervisors:list")
    return _listing(call, detailed=False)


def index_detail(call: Call) -> Response:
    call.enforce("os_compute_api:os-hypervisors:list-detail")
    return _listing(call, detailed=True)


def show(call: Call, hypervisor_id: str) -> Response:
    call.enforce("os_compute_api:os-hypervisors:show")
    node = _node(call, hypervisor_id)
    body = _detail(call, node)
    if call.at_least("2.88"):
        try:  # as Nova: a host that cannot say shows null, the rest of the body stands
            body["uptime"] = _host_uptime(call, node)
        except (NotImplementedHere, BadRequest, NotFound, MessagingTimeout):
            body["uptime"] = None
    return json_response({"hypervisor": body})


def _node(call: Call, hypervisor_id: str) -> hosts.Node:
    for node in hosts.nodes(call):
        if str(_ident(call, node)) == hypervisor_id:
            return node
    raise NotFound(f"Hypervisor with ID '{hypervisor_id}' could not be found.")


def _host_uptime(call: Call, node: hosts.Node) -> str:
    """Ask the node's compute host over RPC (ComputeAPI.get_host_uptime), as Nova
    does: only an up service that a cell maps is asked."""
    host, service = node.node.host, node.service
    if hosts.mapped_hosts(call).get(host) != node.cell.uuid:
        raise NotFound(f"Compute host {host} {hosts.UNMAPPED}.")
    if service is None or not hosts.is_up(call, service):
        raise BadRequest(f"Compute service of {host} is unavailable at this time.")
    try:
        return call.state.servers.compute.get_host_uptime(call.context, host)
    except NotImplementedError:
        raise NotImplementedHere("Virt driver does not implement uptime function.") from None


@max_version("2.87")
def statistics(call: Call) -> Response:
    call.enforce("os_compute_api:os-hypervisors:statistics")
    found = [_usage(call, node) for node in hosts.nodes(call)]
    keys = ("current_workload", "free_disk_gb", "free_ram_mb", "local_gb", "local_gb_used",
            "memory_mb", "memory_mb_used", "running_vms", "vcpus", "vcpus_used",
            "disk_available_least")  # fmt: skip
    totals = {key: sum(int(item[key] or 0) for item in found) for key in keys}
    return json_response({"hypervisor_statistics": {"count": len(found), **totals}})


@max_version("2.52")
def search(call: Call, pattern: str) -> Response:
    call.enforce("os_compute_api:os-hypervisors:search")
    found = [n for n in hosts.nodes(call) if pattern in n.node.hypervisor_hostname]
    if not found:
        raise NotFound(f"No hypervisor matching '{pattern}' could be found.")
    return json_response({"hypervisors": [_brief(call, node) for node in found]})


@max_version("2.87")
def uptime(call: Call, hypervisor_id: str) -> Response:
    """The brief view plus the host's uptime line (2.88 moved it into show)."""
    call.enforce("os_compute_api:os-hypervisors:uptime")
    node = _node(call, hypervisor_id)
    body = {**_brief(call, node), "uptime": _host_uptime(call, node)}
    return json_response({"hypervisor": body})


def _servers_on(call: Call, node: hosts.Node) -> list[dict[str, str]]:
    found = store.instances_on(call.svc, node)
    name = node.node.hypervisor_hostname
    return [{"name": i.name, "uuid": i.uuid} for i in found if i.node in (None, name)]


@max_version("2.52")
def servers(call: Call, pattern: str) -> Response:
    """The instances on each hypervisor matching ``pattern``; the key only when there are some."""
    call.enforce("os_compute_api:os-hypervisors:servers")
    found = [n for n in hosts.nodes(call) if pattern in n.node.hypervisor_hostname]
    if not found:
        raise NotFound(f"No hypervisor matching '{pattern}' could be found.")
    listed = []
    for node in found:
        body = _brief(call, node)
        on = _servers_on(call, node)
        if on:
            body["servers"] = on
        listed.append(body)
    return json_response({"hypervisors": listed})


def routes() -> list[Rule]:
    return [
        *route("/os-hypervisors", ["GET"], index),
        *route("/os-hypervisors/detail", ["GET"], index_detail),
        *route("/os-hypervisors/statistics", ["GET"], statistics),
        *route("/os-hypervisors/<pattern>/search", ["GET"], search),
        *route("/os-hypervisors/<pattern>/servers", ["GET"], servers),
        *route("/os-hypervisors/<hypervisor_id>/uptime", ["GET"], uptime),
        *route("/os-hypervisors/<hypervisor_id>", ["GET"], show),
    ]
