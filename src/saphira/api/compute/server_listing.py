"""GET /servers and /servers/detail: one page of build requests and every cell's rows.

The handler turns the query into what the service layer
(``saphira.computesvc.listing``) asks each cell in SQL (project, deleted,
changes-since, the exact-match filters, the sort, the limit and the marker)
and the checks only Python runs (RE2 names, tags, a status's task states...);
a server still in the API DB sorts and pages exactly like one in a cell.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from werkzeug.wrappers import Response

from saphira.api.compute import regex_filter, server_lookup, server_query
from saphira.api.compute import server_views as views
from saphira.api.compute.app import Call
from saphira.api.compute.common import paging, parse_bool, parse_time
from saphira.api.compute.network_proxy import security_group_names
from saphira.api.wsgi.body import compact_json_response
from saphira.computesvc import listing, lookup
from saphira.computesvc.listing import InstanceFilters, SortKey
from saphira.domain.status import filter_from_status
from saphira.exception import BadRequest
from saphira.objects import Instance

_SORT = {"created_at": "created_at", "updated_at": "updated_at", "display_name": "display_name",
         "uuid": "uuid", "vm_state": "vm_state", "task_state": "task_state",
         "power_state": "power_state", "launched_at": "launched_at", "key_name": "key_name",
         "availability_zone": "availability_zone", "image_ref": "image_ref",
         "project_id": "project_id", "user_id": "user_id", "hostname": "hostname",
         "display_description": "display_description", "launch_index": "launch_index",
         "locked": "locked", "progress": "progress", "terminated_at": "terminated_at",
         "access_ip_v4": "access_ip_v4", "access_ip_v6": "access_ip_v6",
         "instance_type_id": "flavorid", "host": "host", "node": "node",
         "config_drive": "config_drive"}  # fmt: skip
_ADMIN_SORT = {"host", "node"}
Check = Callable[[Instance], bool]


def _equals(attr: str, value: str) -> Check:
    def check(instance: Instance) -> bool:
        got = instance.flavor.flavorid if attr == "flavor" else getattr(instance, attr)
        return bool(got == value)

    return check


def _checks(call: Call, args: Any) -> list[Check]:
    checks: list[Check] = []
    if "name" in args:
        named = regex_filter.search("name", args["name"])
        checks.append(lambda i: named(i.display_name))
    if "status" in args:
        wanted = filter_from_status(args.getlist("status"))
        if not wanted.vm_states and call.at_least("2.38"):
            raise BadRequest("Invalid status value")  # before 2.38: an empty list
        checks.append(lambda i: i.vm_state in wanted.vm_states and (
            wanted.task_states is None or i.task_state in wanted.task_states))  # fmt: skip
    for key, attr in (("flavor", "flavor"), ("image", "image_ref"),
                      ("reservation_id", "reservation_id"), ("key_name", "key_name"),
                      ("availability_zone", "availability_zone")):  # fmt: skip
        if key in args:
            checks.append(_equals(attr, args[key]))
    if call.context.is_admin:
        for key in ("host", "node"):
            if key in args:
                checks.append(_equals(key, args[key]))
    if "locked" in args and call.at_least("2.73"):
        locked = parse_bool(args["locked"], "locked")
        checks.append(lambda i: i.locked is locked)
    if "tags" in args and call.at_least("2.26"):
        tags = set(args["tags"].split(","))
        checks.append(lambda i: tags <= set(i.tags))
    if "tags-any" in args and call.at_least("2.26"):
        anyt = set(args["tags-any"].split(","))
        checks.append(lambda i: bool(anyt & set(i.tags)))
    if "changes-before" in args and call.at_least("2.66"):
        before = parse_time(args["changes-before"], "changes-before")
        checks.append(lambda i: (i.updated_at or i.created_at or before) <= before)
    return checks


def _scope(call: Call) -> str | None:
    """The project to list: the caller's, unless an admin asks for all (or another)."""
    args = call.request.args
    context = call.context
    everyone = "all_tenants" in args and (
        args["all_tenants"] == "" or parse_bool(args["all_tenants"], "all_tenants")
    )
    if everyone:
        call.enforce("os_compute_api:servers:index:get_all_tenants")
    if context.is_admin and (everyone or "project_id" in args or "tenant_id" in args):
        return args.get("project_id") or args.get("tenant_id") if not everyone else None
    return context.project_id or ""


def _narrowed(call: Call, filters: InstanceFilters) -> InstanceFilters:
    """Exact-match filters the cells can apply in SQL too, so a filtered list (the
    CLI's wait loops, a reservation's servers) does not load every row. The checks
    still run on the merged list: SQL only skips rows they would reject."""
    args = call.request.args
    narrowed: dict[str, Any] = {}
    if "reservation_id" in args:
        narrowed["reservation_id"] = args["reservation_id"]
    if "image" in args:
        narrowed["image_ref"] = args["image"]
    if "host" in args and call.context.is_admin:
        narrowed["host"] = args["host"]
    if "status" in args:
        narrowed["vm_states"] = filter_from_status(args.getlist("status")).vm_states
    if "flavor" in args:
        narrowed["flavorid"] = args["flavor"]
    return dataclasses.replace(filters, **narrowed)


def _filters(call: Call) -> InstanceFilters:
    args = call.request.args
    project = _scope(call)
    since = parse_time(args["changes-since"], "changes-since") if "changes-since" in args else None
    deleted: bool | None = False
    if since is not None:
        deleted = None
    if "deleted" in args and call.context.is_admin:
        deleted = parse_bool(args["deleted"], "deleted")
    return _narrowed(call, InstanceFilters(project_id=project, changes_since=since,
                                           deleted=deleted))  # fmt: skip


def _order(call: Call) -> listing.Order:
    """The sort keys and directions (created_at descending by default), checked."""
    args = call.request.args
    keys = args.getlist("sort_key") or ["created_at"]
    dirs = args.getlist("sort_dir")
    for key in keys:
        if key not in _SORT or (key in _ADMIN_SORT and not call.context.is_admin):
            raise BadRequest(f"Invalid sort_key {key}")
    for direction in dirs:
        if direction not in ("asc", "desc"):
            raise BadRequest(f"Invalid sort_dir {direction}")
    if len(dirs) > len(keys):
        raise BadRequest("Sort direction size exceeds sort key size")
    pairs = zip(keys, dirs + ["desc"] * (len(keys) - len(dirs)), strict=True)
    return listing.Order(
        tuple(SortKey(_SORT[key], direction == "desc") for key, direction in pairs)
    )


def _keep(checks: list[Check]) -> Callable[[Instance], bool] | None:
    if not checks:
        return None
    return lambda instance: all(check(instance) for check in checks)


def page(call: Call, *, detailed: bool) -> Response:
    rule = "detail" if detailed else "index"
    call.enforce(f"os_compute_api:servers:{rule}")
    server_query.check(call)
    filters = _filters(call)
    checks = _checks(call, call.request.args)
    order = _order(call)
    limit, marker = paging(call)
    rows = listing.page(call.svc, listing.Page(filters, order, limit + 1, marker, _keep(checks)))
    chunk = rows[:limit]
    if detailed:
        items = _detailed(call, chunk)
    else:
        items = [views.brief(call, instance) for instance in chunk]
    body: dict[str, Any] = {"servers": items}
    if chunk and len(rows) > limit:
        body["servers_links"] = call.next_link(
            "servers/detail" if detailed else "servers", chunk[-1].uuid
        )
    return compact_json_response(body)


def _detailed(call: Call, chunk: list[Instance]) -> list[dict[str, Any]]:
    rights = views.Rights.of(call)
    uuids = [i.uuid for i in chunk]
    faults = (
        lookup.faults_of(call.svc, uuids) if any(views.status(i) == "ERROR" for i in chunk) else {}
    )
    specs = lookup.specs_of(call.svc, uuids) if call.at_least("2.96") else {}
    statuses = server_lookup.host_statuses(call) if rights.host_status else {}
    groups = security_group_names(call, chunk)
    return [
        views.detail(call, server_lookup.with_spec(call, views.Shown(
            i, faults.get(i.uuid),
            server_lookup.host_status(call, i, statuses) if rights.host_status else "",
            security_groups=groups.get(i.uuid, [])), specs.get(i.uuid)), rights, listing=True)
        for i in chunk
    ]  # fmt: skip
