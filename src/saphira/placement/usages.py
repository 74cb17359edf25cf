"""Usage per provider (every inventory class, 0 when unused) and per project/user."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.placement.models import Allocation, Consumer, Inventory


def of_provider(session: Session, provider_id: int) -> dict[str, int]:
    classes = session.scalars(
        sa.select(Inventory.resource_class).where(Inventory.resource_provider_id == provider_id)
    )
    result = dict.fromkeys(classes, 0)
    rows = session.execute(
        sa.select(Allocation.resource_class, sa.func.sum(Allocation.used))
        .where(Allocation.resource_provider_id == provider_id)
        .group_by(Allocation.resource_class)
    )
    for rc, used in rows:
        result[rc] = int(used or 0)
    return result


def of_project(session: Session, project_id: str, user_id: str | None = None) -> dict[str, int]:
    query = (
        sa.select(Allocation.resource_class, sa.func.sum(Allocation.used))
        .join(Consumer, Consumer.uuid == Allocation.consumer_id)
        .where(Consumer.project_id == project_id)
        .group_by(Allocation.resource_class)
    )
    if user_id is not None:
        query = query.where(Consumer.user_id == user_id)
    return {rc: int(used or 0) for rc, used in session.execute(query)}
