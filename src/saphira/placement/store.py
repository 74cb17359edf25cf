"""Shared lookups and the provider compare-and-swap every write goes through."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from saphira import exception
from saphira.db.placement.models import ResourceProvider
from saphira.placement.errors import ConcurrentUpdate


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def get_provider(session: Session, uuid: str) -> ResourceProvider:
    found = session.scalar(sa.select(ResourceProvider).where(ResourceProvider.uuid == uuid))
    if found is None:
        raise exception.NotFound(f"No resource provider with uuid {uuid} found")
    return found


# Built once with its values bound (a statement built per call pays for its
# construction and its cache key each time).
_BUMP = (
    sa.update(ResourceProvider)
    .where(
        ResourceProvider.id == sa.bindparam("b_id", type_=sa.Integer()),
        ResourceProvider.generation == sa.bindparam("b_expected", type_=sa.Integer()),
    )
    .values(
        generation=sa.bindparam("b_next", type_=sa.Integer()),
        updated_at=sa.bindparam("b_now", type_=ResourceProvider.__table__.c.updated_at.type),
    )
    .execution_options(synchronize_session=False)
)


def bump_generation(
    session: Session,
    provider_id: int,
    expected: int,
    error: type[ConcurrentUpdate] = ConcurrentUpdate,
) -> int:
    """UPDATE ... SET generation = g + 1 WHERE generation = g: the one place a
    provider changes; zero rows means someone else changed it first."""
    values = {"b_id": provider_id, "b_expected": expected, "b_next": expected + 1, "b_now": now()}
    result = session.execute(_BUMP, values)
    if getattr(result, "rowcount", 0) != 1:
        raise error(
            "resource provider generation conflict: another thread or process updated "
            "the resource provider; please retry"
        )
    return expected + 1


def check_generation(provider: ResourceProvider, given: int) -> None:
    if provider.generation != given:
        raise ConcurrentUpdate(
            f"resource provider generation conflict: expected {given} but the resource "
            f"provider {provider.uuid} is at generation {provider.generation}"
        )


def bump(session: Session, provider: ResourceProvider) -> int:
    """Bump a loaded provider's generation and keep the object in step."""
    new = bump_generation(session, provider.id, provider.generation)
    set_committed_value(provider, "generation", new)
    set_committed_value(provider, "updated_at", now())
    return new
