"""The aggregates a provider is a member of (set whole, under its generation from 1.19)."""

from __future__ import annotations

from collections.abc import Collection

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.placement.models import ProviderAggregate, ResourceProvider
from saphira.placement.store import bump, check_generation


def of_provider(session: Session, provider_id: int) -> list[str]:
    rows = session.scalars(
        sa.select(ProviderAggregate.aggregate).where(
            ProviderAggregate.resource_provider_id == provider_id
        )
    )
    return sorted(rows)


def set_for_provider(
    session: Session,
    provider: ResourceProvider,
    aggregates: Collection[str],
    generation: int | None,
) -> list[str]:
    """``generation`` None is the pre-1.19 form, which did not check (nor bump)."""
    if generation is not None:
        check_generation(provider, generation)
        bump(session, provider)
    session.execute(
        sa.delete(ProviderAggregate).where(ProviderAggregate.resource_provider_id == provider.id)
    )
    for agg in sorted(set(aggregates)):
        session.add(ProviderAggregate(resource_provider_id=provider.id, aggregate=agg))
    session.flush()
    return sorted(set(aggregates))
