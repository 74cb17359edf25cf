"""Resource providers: create, rename, re-parent, delete, and the list filters."""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Iterable
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from saphira import exception
from saphira.db.placement.models import (
    Allocation,
    Inventory,
    ProviderAggregate,
    ProviderTrait,
    ResourceProvider,
)
from saphira.placement import capacity
from saphira.placement.errors import CannotDeleteParent, DuplicateName, ProviderInUse
from saphira.placement.store import get_provider, now


@dataclass
class ProviderFilter:
    """GET /resource_providers query, already parsed."""

    name: str | None = None
    uuid: str | None = None
    in_tree: str | None = None
    member_of: list[set[str]] = field(default_factory=list)  # AND of ORs
    not_member_of: set[str] = field(default_factory=set)
    resources: dict[str, int] = field(default_factory=dict)
    required: set[str] = field(default_factory=set)
    forbidden: set[str] = field(default_factory=set)


def uuid_map(session: Session) -> dict[int, str]:
    rows = session.execute(sa.select(ResourceProvider.id, ResourceProvider.uuid))
    return {row.id: row.uuid for row in rows}


def create(
    session: Session, name: str, uuid: str | None = None, parent_uuid: str | None = None
) -> ResourceProvider:
    parent = _parent(session, parent_uuid)
    provider = ResourceProvider(
        uuid=uuid or str(uuidlib.uuid4()),
        name=name,
        generation=0,
        parent_provider_id=parent.id if parent else None,
        root_provider_id=parent.root_provider_id if parent else None,
        updated_at=now(),
    )
    _check_unique(session, provider.name, provider.uuid)
    session.add(provider)
    try:
        session.flush()
    except IntegrityError:
        raise _duplicate(provider.name, provider.uuid) from None
    if provider.root_provider_id is None:
        provider.root_provider_id = provider.id
        session.flush()
    return provider


def _duplicate(name: str, uuid: str) -> DuplicateName:
    return DuplicateName(
        f"Conflicting resource provider name: {name} already exists or uuid {uuid} is taken."
    )


def _check_unique(session: Session, name: str, uuid: str) -> None:
    clash = session.scalar(
        sa.select(ResourceProvider.id).where(
            sa.or_(ResourceProvider.name == name, ResourceProvider.uuid == uuid)
        )
    )
    if clash is not None:
        raise _duplicate(name, uuid)


def _parent(session: Session, parent_uuid: str | None) -> ResourceProvider | None:
    if parent_uuid is None:
        return None
    parent = session.scalar(sa.select(ResourceProvider).where(ResourceProvider.uuid == parent_uuid))
    if parent is None:
        raise exception.BadRequest(f"parent provider UUID cannot be found: {parent_uuid}")
    return parent


def update(
    session: Session,
    provider: ResourceProvider,
    name: str,
    parent_uuid: str | None,
    *,
    parent_given: bool,
) -> ResourceProvider:
    """Rename; set a parent once (un-parenting or moving needs 1.37, not served)."""
    if name != provider.name:
        clash = session.scalar(sa.select(ResourceProvider.id).where(ResourceProvider.name == name))
        if clash is not None:
            raise DuplicateName(f"Conflicting resource provider name: {name} already exists.")
        provider.name = name
    if parent_given:
        _reparent(session, provider, parent_uuid)
    provider.updated_at = now()
    try:
        session.flush()
    except IntegrityError:
        raise DuplicateName(f"Conflicting resource provider name: {name} already exists.") from None
    return provider


def _reparent(session: Session, provider: ResourceProvider, parent_uuid: str | None) -> None:
    current = provider.parent_provider_id
    parent = _parent(session, parent_uuid)
    new = parent.id if parent else None
    if new == current:
        return
    if current is not None:
        raise exception.BadRequest("re-parenting a provider is not currently allowed.")
    assert parent is not None
    if parent.root_provider_id == provider.id:
        raise exception.BadRequest("creating loop in the provider tree is not allowed.")
    old_root = provider.id
    provider.parent_provider_id = parent.id
    session.execute(
        sa.update(ResourceProvider)
        .where(ResourceProvider.root_provider_id == old_root)
        .values(root_provider_id=parent.root_provider_id)
        .execution_options(synchronize_session="fetch")
    )


def delete(session: Session, provider: ResourceProvider) -> None:
    if session.scalar(
        sa.select(Allocation.id).where(Allocation.resource_provider_id == provider.id).limit(1)
    ):
        raise ProviderInUse(
            f"Unable to delete resource provider {provider.uuid}: Resource provider has "
            "allocations."
        )
    if session.scalar(
        sa.select(ResourceProvider.id)
        .where(ResourceProvider.parent_provider_id == provider.id)
        .limit(1)
    ):
        raise CannotDeleteParent(
            f"Unable to delete parent resource provider {provider.uuid}: It has child "
            "resource providers."
        )
    for model in (Inventory, ProviderTrait, ProviderAggregate):
        session.execute(sa.delete(model).where(model.resource_provider_id == provider.id))
    session.delete(provider)
    session.flush()


def get(session: Session, uuid: str) -> ResourceProvider:
    return get_provider(session, uuid)


def _ids_with(session: Session, model: type[ProviderTrait], names: Iterable[str]) -> set[int]:
    return set(session.scalars(sa.select(model.resource_provider_id).where(model.trait.in_(names))))


def _ids_in_aggregates(session: Session, aggregates: Iterable[str]) -> set[int]:
    query = sa.select(ProviderAggregate.resource_provider_id).where(
        ProviderAggregate.aggregate.in_(list(aggregates))
    )
    return set(session.scalars(query))


def list_providers(session: Session, flt: ProviderFilter) -> list[ResourceProvider]:
    query = sa.select(ResourceProvider).order_by(ResourceProvider.id)
    if flt.name is not None:
        query = query.where(ResourceProvider.name == flt.name)
    if flt.uuid is not None:
        query = query.where(ResourceProvider.uuid == flt.uuid)
    if flt.in_tree is not None:
        tree = session.scalar(
            sa.select(ResourceProvider).where(ResourceProvider.uuid == flt.in_tree)
        )
        if tree is None:
            return []
        query = query.where(ResourceProvider.root_provider_id == tree.root_provider_id)
    found = list(session.scalars(query))
    keep = {p.id for p in found}
    for group in flt.member_of:
        keep &= _ids_in_aggregates(session, group)
    if flt.not_member_of:
        keep -= _ids_in_aggregates(session, flt.not_member_of)
    for trait in flt.required:
        keep &= _ids_with(session, ProviderTrait, [trait])
    if flt.forbidden:
        keep -= _ids_with(session, ProviderTrait, flt.forbidden)
    if flt.resources:
        keep &= capacity.providers_with_room(session, flt.resources, keep)
    return [p for p in found if p.id in keep]
