"""Moves as os-migrations lists them: every cell's migrations table, newest
first, with the flavors' internal ids Nova shows (``old_instance_type_id``)."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa

from saphira.computesvc.caller import Caller
from saphira.db.api.models import Flavor
from saphira.db.cell import migration_rows
from saphira.db.cell.migration_rows import MigrationFilter, MigrationRecord

__all__ = ["MigrationFilter", "MigrationRecord", "flavor_ids", "listed"]


def listed(caller: Caller, wanted: MigrationFilter) -> list[MigrationRecord]:
    found: list[MigrationRecord] = []
    for cell in caller.cells():
        with caller.cell(cell) as session:
            found.extend(migration_rows.listed(session, wanted))
    oldest = dt.datetime.min
    return sorted(found, key=lambda m: (m.created_at or oldest, m.id), reverse=True)


def flavor_ids(caller: Caller, records: list[MigrationRecord]) -> dict[str, int]:
    """flavorid -> the flavor row's id, for the flavors the records name."""
    wanted = {f for m in records for f in (m.old_flavor_id, m.new_flavor_id) if f}
    if not wanted:
        return {}
    stmt = sa.select(Flavor.flavorid, Flavor.id).where(Flavor.flavorid.in_(wanted))
    return {flavorid: ident for flavorid, ident in caller.api.execute(stmt)}
