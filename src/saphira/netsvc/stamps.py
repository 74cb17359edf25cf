"""Ids, times and revision numbers: Neutron's standard attributes."""

from __future__ import annotations

import datetime as dt
import uuid

from saphira.db.network.models import StandardAttrs


def utcnow() -> dt.datetime:
    """Naive UTC with microseconds: views show seconds, ordering by creation stays exact."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def new_id() -> str:
    return str(uuid.uuid4())


def created(row: StandardAttrs, description: str = "") -> None:
    row.description = description
    row.created_at = row.updated_at = utcnow()
    row.revision_number = 0


def bumped(row: StandardAttrs) -> None:
    """A change: a new updated_at and the next revision number."""
    row.updated_at = utcnow()
    row.revision_number = (row.revision_number or 0) + 1
