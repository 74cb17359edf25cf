"""Allocations: claims of consumers against providers, never past capacity.

One write replaces the allocations of one or more consumers in a single
transaction: read each provider's generation first, then inventories and
usage, check capacity, write, and bump every provider with
``UPDATE ... WHERE generation = :read``. A concurrent claim that committed
in between moved a generation, so ours updates zero rows and starts over
(up to ``retries`` times, as Placement does) rather than oversubscribing.
Consumer generations (1.28+) are the caller's compare-and-swap and are not
retried: a mismatch is the caller's 409.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy import exc
from sqlalchemy.orm import Session

from saphira import exception
from saphira.db.placement import Database
from saphira.db.placement.models import Allocation, Consumer, ResourceProvider
from saphira.placement import capacity
from saphira.placement.errors import ConcurrentUpdate, ProviderGenerationConflict
from saphira.placement.store import bump_generation

LOG = logging.getLogger(__name__)
UNSET = -1  # "no consumer_generation given" (before 1.28): no check


@dataclass
class ConsumerClaim:
    """The whole new allocation set of one consumer."""

    consumer: str
    project_id: str
    user_id: str
    resources: dict[str, dict[str, int]] = field(default_factory=dict)  # rp uuid -> rc -> n
    generation: int | None = UNSET  # None: the consumer must be new


def _retryable(error: exc.DBAPIError) -> bool:
    text = str(error.orig).lower()
    code = getattr(error.orig, "sqlstate", None) or getattr(error.orig, "pgcode", None)
    return (
        code in ("40001", "40P01")
        or "deadlock" in text
        or "database is locked" in text
        or "lock wait timeout" in text
    )


def write(db: Database, claims: list[ConsumerClaim], retries: int = 10) -> None:
    """Replace the allocations of every consumer in ``claims``, atomically."""
    for attempt in range(1, retries + 1):
        try:
            with db.writer() as session:
                _write(session, claims)
            return
        except ProviderGenerationConflict:
            LOG.debug("allocation write lost a provider race (attempt %d)", attempt)
        except exc.IntegrityError:
            if all(claim.generation != UNSET for claim in claims):
                raise ConcurrentUpdate(
                    "consumer generation conflict: the consumer was created concurrently"
                ) from None
        except exc.DBAPIError as error:
            if not _retryable(error):
                raise
            LOG.debug("allocation write hit %s (attempt %d)", error.orig, attempt)
    raise ConcurrentUpdate(
        "resource provider generation conflict: too many concurrent allocation writes; please retry"
    )


# The statements every allocation write runs, built once with their keys bound (a
# statement built per call pays for its construction and its cache key each time).
_PROVIDERS = (
    sa.select(ResourceProvider.uuid, ResourceProvider.id, ResourceProvider.generation)
    .where(ResourceProvider.uuid.in_(sa.bindparam("uuids", expanding=True)))
    .order_by(ResourceProvider.id)
)
_CONSUMER = sa.select(Consumer).where(Consumer.uuid == sa.bindparam("consumer", type_=sa.String()))
# No Allocation object is loaded in a write's session: nothing to synchronise.
_DROP = (
    sa.delete(Allocation)
    .where(Allocation.consumer_id == sa.bindparam("consumer", type_=sa.String()))
    .execution_options(synchronize_session=False)
)


def _providers(session: Session, uuids: set[str]) -> dict[str, tuple[int, int]]:
    """uuid -> (id, generation), read before anything else in the transaction."""
    rows = session.execute(_PROVIDERS, {"uuids": sorted(uuids)})
    found = {row.uuid: (row.id, row.generation) for row in rows}
    missing = sorted(uuids - set(found))
    if missing:
        raise exception.BadRequest(
            f"Allocation for resource provider '{missing[0]}' that does not exist."
        )
    return found


def _write(session: Session, claims: list[ConsumerClaim]) -> None:
    uuids = {rp for claim in claims for rp in claim.resources}
    providers = _providers(session, uuids)
    consumers = [claim.consumer for claim in claims]
    classes = {rc for claim in claims for res in claim.resources.values() for rc in res}
    ids = [pid for pid, _ in providers.values()]
    rooms = capacity.rooms(session, ids, classes, exclude_consumers=consumers)
    _check_capacity(claims, providers, rooms)
    for claim in claims:
        _replace_consumer(session, claim, providers)
    for pid, generation in sorted(providers.values()):
        bump_generation(session, pid, generation, ProviderGenerationConflict)


def _check_capacity(
    claims: list[ConsumerClaim],
    providers: Mapping[str, tuple[int, int]],
    rooms: Mapping[capacity.Key, capacity.Room],
) -> None:
    wanted: dict[tuple[str, str], int] = {}
    for claim in claims:
        for rp, res in claim.resources.items():
            for rc, amount in res.items():
                room = rooms.get((providers[rp][0], rc))
                if room is None:
                    raise exception.Conflict(
                        f"Unable to allocate inventory: Inventory for '{rc}' on resource "
                        f"provider '{rp}' invalid."
                    )
                if amount < room.min_unit or amount > room.max_unit or amount % room.step_size:
                    raise exception.Conflict(
                        f"Unable to allocate inventory: {room.refusal(amount)} for '{rc}' on "
                        f"resource provider '{rp}'."
                    )
                wanted[(rp, rc)] = wanted.get((rp, rc), 0) + amount
    for (rp, rc), amount in wanted.items():
        room = rooms[(providers[rp][0], rc)]
        if room.used + amount > room.capacity:
            raise exception.Conflict(
                f"Unable to allocate inventory: Unable to create allocation for '{rc}' on "
                f"resource provider '{rp}'. The requested amount would exceed the capacity."
            )


def _replace_consumer(
    session: Session, claim: ConsumerClaim, providers: Mapping[str, tuple[int, int]]
) -> None:
    row = session.scalar(_CONSUMER, {"consumer": claim.consumer})
    _check_consumer_generation(claim, row)
    session.execute(_DROP, {"consumer": claim.consumer})
    if not claim.resources:
        if row is not None:
            session.delete(row)
        return
    rows = [
        {"resource_provider_id": providers[rp][0], "consumer_id": claim.consumer,
         "resource_class": rc, "used": amount}
        for rp, res in claim.resources.items()
        for rc, amount in res.items()
    ]  # fmt: skip
    if rows:  # one executemany, not a statement per row
        session.execute(sa.insert(Allocation), rows)
    if row is None:
        session.add(
            Consumer(
                uuid=claim.consumer,
                project_id=claim.project_id,
                user_id=claim.user_id,
                generation=1,
            )
        )
    else:
        done = session.execute(
            sa.update(Consumer)
            .where(Consumer.id == row.id, Consumer.generation == row.generation)
            .values(
                generation=row.generation + 1, project_id=claim.project_id, user_id=claim.user_id
            )
            .execution_options(synchronize_session=False)
        )
        if getattr(done, "rowcount", 0) != 1:
            raise ConcurrentUpdate(
                f"consumer generation conflict: consumer {claim.consumer} changed concurrently"
            )
    session.flush()


def _check_consumer_generation(claim: ConsumerClaim, row: Consumer | None) -> None:
    if claim.generation == UNSET:
        return
    current = row.generation if row is not None else None
    if current != claim.generation:
        expected = "null" if current is None else current
        got = "null" if claim.generation is None else claim.generation
        raise ConcurrentUpdate(f"consumer generation conflict - expected {expected} but got {got}")


@dataclass
class ConsumerView:
    project_id: str | None
    user_id: str | None
    generation: int | None
    by_provider: dict[str, tuple[int, dict[str, int]]]  # uuid -> (rp generation, resources)


def of_consumer(session: Session, consumer: str) -> ConsumerView:
    rows = session.execute(
        sa.select(Allocation, ResourceProvider.uuid, ResourceProvider.generation)
        .join(ResourceProvider, ResourceProvider.id == Allocation.resource_provider_id)
        .where(Allocation.consumer_id == consumer)
    )
    view = ConsumerView(None, None, None, {})
    for alloc, uuid, generation in rows:
        view.by_provider.setdefault(uuid, (generation, {}))[1][alloc.resource_class] = alloc.used
    row = session.scalar(sa.select(Consumer).where(Consumer.uuid == consumer))
    if row is not None:
        view.project_id, view.user_id, view.generation = row.project_id, row.user_id, row.generation
    return view


def of_provider(session: Session, provider_id: int) -> dict[str, dict[str, int]]:
    result: dict[str, dict[str, int]] = {}
    rows = session.scalars(
        sa.select(Allocation).where(Allocation.resource_provider_id == provider_id)
    )
    for alloc in rows:
        result.setdefault(alloc.consumer_id, {})[alloc.resource_class] = alloc.used
    return result


def delete(db: Database, consumer: str) -> None:
    with db.writer() as session:
        found = session.execute(sa.delete(Allocation).where(Allocation.consumer_id == consumer))
        if not getattr(found, "rowcount", 0):
            raise exception.NotFound(f"No allocations for consumer '{consumer}'")
        session.execute(sa.delete(Consumer).where(Consumer.uuid == consumer))
