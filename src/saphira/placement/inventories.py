"""Inventories of a provider: replaced whole or per class, always under the
provider's generation (409 placement.concurrent_update when it moved)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira import exception
from saphira.db.placement.models import Allocation, Inventory, ResourceProvider
from saphira.placement import resource_classes
from saphira.placement.errors import InventoryInUse
from saphira.placement.store import bump, check_generation

MAX_INT = 2147483647
DEFAULTS: dict[str, Any] = {
    "reserved": 0,
    "min_unit": 1,
    "max_unit": MAX_INT,
    "step_size": 1,
    "allocation_ratio": 1.0,
}
FIELDS = ("total", "reserved", "min_unit", "max_unit", "step_size", "allocation_ratio")


def as_dict(inv: Inventory) -> dict[str, Any]:
    return {name: getattr(inv, name) for name in FIELDS}


def get_all(session: Session, provider: ResourceProvider) -> dict[str, Inventory]:
    rows = session.scalars(
        sa.select(Inventory).where(Inventory.resource_provider_id == provider.id)
    )
    return {inv.resource_class: inv for inv in rows}


def _checked(
    rc: str, fields: Mapping[str, Any], *, reserved_may_equal_total: bool
) -> dict[str, Any]:
    data = {**DEFAULTS, **fields}
    total, reserved = data["total"], data["reserved"]
    if reserved > total or (reserved == total and not reserved_may_equal_total and total):
        raise exception.BadRequest(
            f"Unable to update inventory for resource provider: Invalid inventory for '{rc}'. "
            "The reserved value is greater than or equal to total."
        )
    if data["min_unit"] > data["max_unit"]:
        raise exception.BadRequest(
            f"Invalid inventory for '{rc}': min_unit is greater than max_unit."
        )
    return {name: data[name] for name in FIELDS}


def _in_use(session: Session, provider: ResourceProvider, classes: set[str]) -> set[str]:
    if not classes:
        return set()
    rows = session.scalars(
        sa.select(Allocation.resource_class)
        .where(
            Allocation.resource_provider_id == provider.id,
            Allocation.resource_class.in_(classes),
        )
        .distinct()
    )
    return set(rows)


def replace_all(
    session: Session,
    provider: ResourceProvider,
    generation: int,
    inventories: Mapping[str, Mapping[str, Any]],
    *,
    reserved_may_equal_total: bool = True,
) -> dict[str, Inventory]:
    check_generation(provider, generation)
    resource_classes.require(session, inventories)
    checked = {
        rc: _checked(rc, f, reserved_may_equal_total=reserved_may_equal_total)
        for rc, f in inventories.items()
    }
    existing = get_all(session, provider)
    removed = set(existing) - set(checked)
    busy = _in_use(session, provider, removed)
    if busy:
        raise InventoryInUse(
            f"update conflict: Inventory for '{', '.join(sorted(busy))}' on resource provider "
            f"'{provider.uuid}' in use."
        )
    bump(session, provider)
    for rc in removed:
        session.delete(existing[rc])
    for rc, data in checked.items():
        inv = existing.get(rc)
        if inv is None:
            session.add(Inventory(resource_provider_id=provider.id, resource_class=rc, **data))
        else:
            for name, value in data.items():
                setattr(inv, name, value)
    session.flush()
    return get_all(session, provider)


def set_one(
    session: Session,
    provider: ResourceProvider,
    generation: int,
    rc: str,
    fields: Mapping[str, Any],
    *,
    create: bool,
    reserved_may_equal_total: bool = True,
) -> Inventory:
    """PUT /inventories/{rc} (must exist) or POST /inventories (must not)."""
    check_generation(provider, generation)
    resource_classes.require(session, [rc])
    existing = get_all(session, provider)
    if create and rc in existing:
        raise exception.Conflict(
            f"Update conflict: Inventory for '{rc}' on resource provider '{provider.uuid}' "
            "already exists."
        )
    if not create and rc not in existing:
        raise exception.BadRequest(
            f"No inventory record with resource class for resource provider {provider.uuid}"
        )
    data = _checked(rc, fields, reserved_may_equal_total=reserved_may_equal_total)
    replace = {k: as_dict(v) for k, v in existing.items()}
    replace[rc] = data
    found = replace_all(
        session, provider, generation, replace, reserved_may_equal_total=reserved_may_equal_total
    )
    return found[rc]


def delete_one(session: Session, provider: ResourceProvider, rc: str) -> None:
    existing = get_all(session, provider)
    if rc not in existing:
        raise exception.NotFound(
            f"No inventory of class {rc} found for delete on resource provider {provider.uuid}"
        )
    remaining = {k: as_dict(v) for k, v in existing.items() if k != rc}
    replace_all(session, provider, provider.generation, remaining)


def delete_all(session: Session, provider: ResourceProvider) -> None:
    replace_all(session, provider, provider.generation, {})
