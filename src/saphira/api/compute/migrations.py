"""GET /os-migrations (admin): every move across the cells, newest first.

Filters ``host`` (source or destination), ``status``, ``instance_uuid``,
``migration_type`` and ``source_compute``, as Nova; 2.23 adds ``id``-linked
``migration_type``, 2.59 ``uuid``, 2.80 ``user_id``/``project_id`` (Nova's
view); from 2.59 ``limit`` and ``marker`` (a migration uuid) page the list,
with ``migrations_links`` to the next page.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute.app import Call, route
from saphira.api.compute.common import paging
from saphira.api.wsgi import json_response
from saphira.computesvc import migrations
from saphira.computesvc.migrations import MigrationFilter, MigrationRecord
from saphira.exception import BadRequest

_FILTERS = ("instance_uuid", "host", "status", "migration_type", "source_compute")


def _time(value: dt.datetime | None) -> str | None:
    return value.isoformat(timespec="microseconds") if value else None


def _view(call: Call, m: MigrationRecord, ids: dict[str, int]) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": m.id, "instance_uuid": m.instance_uuid, "status": m.status,
        "source_compute": m.source_compute, "source_node": m.source_node,
        "dest_compute": m.dest_compute, "dest_node": m.dest_node, "dest_host": "",
        "old_instance_type_id": ids.get(m.old_flavor_id or ""),
        "new_instance_type_id": ids.get(m.new_flavor_id or ""),
        "created_at": _time(m.created_at), "updated_at": _time(m.updated_at),
    }  # fmt: skip
    if call.at_least("2.23"):
        body["migration_type"] = m.migration_type
    if call.at_least("2.59"):
        body["uuid"] = m.uuid
    if call.at_least("2.80"):
        body["user_id"], body["project_id"] = m.user_id, m.project_id
    return body


def _page(call: Call, rows: list[MigrationRecord]) -> tuple[list[MigrationRecord], dict[str, Any]]:
    limit, marker = paging(call)
    if marker is not None:
        uuids = [row.uuid for row in rows]
        if marker not in uuids:
            raise BadRequest(f"Marker {marker} could not be found.")
        rows = rows[uuids.index(marker) + 1 :]
    extra: dict[str, Any] = {}
    if 0 < limit < len(rows):
        extra["migrations_links"] = call.next_link("os-migrations", rows[limit - 1].uuid)
    return rows[:limit], extra


def index(call: Call) -> Response:
    call.enforce("os_compute_api:os-migrations:index")
    args = call.request.args
    wanted = MigrationFilter(**{name: args.get(name) for name in _FILTERS})
    found = migrations.listed(call.svc, wanted)
    extra: dict[str, Any] = {}
    if call.at_least("2.59"):
        found, extra = _page(call, found)
    ids = migrations.flavor_ids(call.svc, found)
    return json_response({"migrations": [_view(call, m, ids) for m in found], **extra})


def routes() -> list[Rule]:
    return [*route("/os-migrations", ["GET"], index)]
