"""Inventory and usage per (provider, class), and the one capacity rule.

A request for ``amount`` of a class fits a provider when
``(total - reserved) * allocation_ratio >= used + amount`` and the amount
respects min_unit, max_unit and step_size, as Placement checks it.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.placement.models import Allocation, Inventory

Key = tuple[int, str]  # (provider id, resource class)


@dataclass(frozen=True)
class Room:
    """One inventory record with what is used of it."""

    total: int
    reserved: int
    min_unit: int
    max_unit: int
    step_size: int
    allocation_ratio: float
    used: int

    @property
    def capacity(self) -> int:
        return int((self.total - self.reserved) * self.allocation_ratio)

    def refusal(self, amount: int) -> str | None:
        """Why ``amount`` more does not fit, or None when it does."""
        if amount < self.min_unit:
            return f"{amount} is below min_unit {self.min_unit}"
        if amount > self.max_unit:
            return f"{amount} is above max_unit {self.max_unit}"
        if amount % self.step_size:
            return f"{amount} is not a multiple of step_size {self.step_size}"
        if self.used + amount > self.capacity:
            return f"used {self.used} + requested {amount} exceeds capacity {self.capacity}"
        return None


@functools.cache
def _usage_statement(
    by_provider: bool, by_class: bool, excluding: bool
) -> sa.Select[int, str, int]:
    """The usage query of one shape, built once: its lists are expanding parameters (a
    statement built per call pays for its construction and its cache key each time)."""
    query = sa.select(
        Allocation.resource_provider_id, Allocation.resource_class, sa.func.sum(Allocation.used)
    ).group_by(Allocation.resource_provider_id, Allocation.resource_class)
    if by_provider:
        query = query.where(Allocation.resource_provider_id.in_(_list("providers")))
    if by_class:
        query = query.where(Allocation.resource_class.in_(_list("classes")))
    if excluding:
        query = query.where(Allocation.consumer_id.not_in(_list("consumers")))
    return query


@functools.cache
def _inventory_statement(by_provider: bool, by_class: bool) -> sa.Select[Inventory]:
    query = sa.select(Inventory)
    if by_provider:
        query = query.where(Inventory.resource_provider_id.in_(_list("providers")))
    if by_class:
        query = query.where(Inventory.resource_class.in_(_list("classes")))
    return query


def _list(name: str) -> sa.BindParameter[Any]:
    return sa.bindparam(name, expanding=True)


def _parameters(
    provider_ids: Collection[int] | None,
    classes: Collection[str] | None,
    exclude_consumers: Collection[str] = (),
) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    if provider_ids is not None:
        found["providers"] = list(provider_ids)
    if classes is not None:
        found["classes"] = list(classes)
    if exclude_consumers:
        found["consumers"] = list(exclude_consumers)
    return found


def usage(
    session: Session,
    provider_ids: Collection[int] | None = None,
    classes: Collection[str] | None = None,
    exclude_consumers: Collection[str] = (),
) -> dict[Key, int]:
    query = _usage_statement(provider_ids is not None, classes is not None, bool(exclude_consumers))
    rows = session.execute(query, _parameters(provider_ids, classes, exclude_consumers))
    return {(row[0], row[1]): int(row[2] or 0) for row in rows}


def rooms(
    session: Session,
    provider_ids: Collection[int] | None = None,
    classes: Collection[str] | None = None,
    exclude_consumers: Collection[str] = (),
) -> dict[Key, Room]:
    """Inventories with their usage; callers read provider generations *before* this."""
    query = _inventory_statement(provider_ids is not None, classes is not None)
    inventories = list(session.scalars(query, _parameters(provider_ids, classes)))
    used = usage(session, provider_ids, classes, exclude_consumers)
    return {
        (inv.resource_provider_id, inv.resource_class): Room(
            inv.total,
            inv.reserved,
            inv.min_unit,
            inv.max_unit,
            inv.step_size,
            inv.allocation_ratio,
            used.get((inv.resource_provider_id, inv.resource_class), 0),
        )
        for inv in inventories
    }


def fits_all(found: Mapping[Key, Room], provider_id: int, resources: Mapping[str, int]) -> bool:
    for rc, amount in resources.items():
        room = found.get((provider_id, rc))
        if room is None or room.refusal(amount) is not None:
            return False
    return True


def providers_with_room(
    session: Session, resources: Mapping[str, int], candidates: Iterable[int]
) -> set[int]:
    ids = set(candidates)
    found = rooms(session, ids, list(resources))
    return {pid for pid in ids if fits_all(found, pid, resources)}
