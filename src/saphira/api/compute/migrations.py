"""GET /os-migrations (admin): every move across the cells, newest first.

Filters ``host`` (source or destination), ``status``, ``instance_uuid``,
``migration_type`` and ``source_compute``, as Nova; 2.23 adds ``id``-linked
``migration_type``, 2.59 ``uuid``, 2.80 ``user_id``/``project_id`` (Nova's
view). Paging (2.59 ``limit``/``marker``) is not served: every row comes back.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute.app import Call, route
from saphira.api.wsgi import json_response
from saphira.computesvc import migrations
from saphira.computesvc.migrations import MigrationFilter, MigrationRecord

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


def index(call: Call) -> Response:
    call.enforce("os_compute_api:os-migrations:index")
    args = call.request.args
    wanted = MigrationFilter(**{name: args.get(name) for name in _FILTERS})
    found = migrations.listed(call.svc, wanted)
    ids = migrations.flavor_ids(call.svc, found)
    return json_response({"migrations": [_view(call, m, ids) for m in found]})


def routes() -> list[Rule]:
    return [*route("/os-migrations", ["GET"], index)]
