"""The servers a listing starts from: build requests merged with every cell's rows.

Cells answer the SQL-cheap part (project, deleted, changes-since and the
exact-match filters in ``InstanceFilters``); the API runs the rest of Nova's
filters and the sort over the merged list.
"""

from __future__ import annotations

from saphira.computesvc.caller import Caller
from saphira.db.api import build_requests
from saphira.db.cell import instances
from saphira.db.cell.instances import InstanceFilters
from saphira.objects import Instance

__all__ = ["InstanceFilters", "gather"]


def gather(caller: Caller, filters: InstanceFilters) -> list[Instance]:
    """Build requests (unless only deleted servers are asked for), then each cell's rows.

    A server the conductor moved into a cell between the two reads is listed once.
    """
    since = filters.changes_since
    found: list[Instance] = []
    if not filters.deleted:
        found = [
            i for i in build_requests.list_requests(caller.api, filters.project_id)
            if since is None or (i.created_at and i.created_at >= since)
        ]  # fmt: skip
    for cell in caller.cells(with_cell0=True):
        with caller.cell(cell) as session:
            found.extend(instances.list_instances(session, filters))
    seen: set[str] = set()
    unique: list[Instance] = []
    for instance in found:
        if instance.uuid not in seen:
            seen.add(instance.uuid)
            unique.append(instance)
    return unique
