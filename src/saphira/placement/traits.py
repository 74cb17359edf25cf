"""Traits: the standard list from os-traits, custom ones in the DB, and the
traits each provider has (replaced whole under the provider's generation)."""

from __future__ import annotations

from collections.abc import Collection, Iterable

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira import exception
from saphira.db.placement.models import CustomTrait, ProviderTrait, ResourceProvider
from saphira.placement.names import is_valid_custom, standard_traits
from saphira.placement.store import bump, check_generation


def exists(session: Session, name: str) -> bool:
    return name in standard_traits() or session.get(CustomTrait, name) is not None


def list_all(
    session: Session,
    names: Collection[str] | None = None,
    prefix: str | None = None,
    associated: bool | None = None,
) -> list[str]:
    custom = set(session.scalars(sa.select(CustomTrait.name)))
    found: set[str] = set(standard_traits()) | custom
    if names is not None:
        found &= set(names)
    if prefix is not None:
        found = {t for t in found if t.startswith(prefix)}
    if associated is not None:
        used = set(session.scalars(sa.select(ProviderTrait.trait).distinct()))
        found = found & used if associated else found - used
    return sorted(found)


def ensure(session: Session, name: str) -> bool:
    """PUT /traits/{name}: True when created; standard names are 400 unless existing."""
    if name in standard_traits():
        return False
    if not is_valid_custom(name):
        raise exception.BadRequest(
            f"The trait is invalid. A valid trait must be no longer than 255 characters, start "
            f'with the prefix "CUSTOM_" and use following characters: "A"-"Z", "0"-"9" '
            f'and "_": {name}'
        )
    if session.get(CustomTrait, name) is not None:
        return False
    session.add(CustomTrait(name=name))
    session.flush()
    return True


def delete(session: Session, name: str) -> None:
    if name in standard_traits():
        raise exception.BadRequest(f"Cannot delete standard trait {name}.")
    row = session.get(CustomTrait, name)
    if row is None:
        raise exception.NotFound(f"No such trait(s): {name}.")
    if session.scalar(sa.select(ProviderTrait.trait).where(ProviderTrait.trait == name).limit(1)):
        raise exception.Conflict(f"The trait {name} is in use by a resource provider.")
    session.delete(row)
    session.flush()


def of_provider(session: Session, provider_id: int) -> list[str]:
    rows = session.scalars(
        sa.select(ProviderTrait.trait).where(ProviderTrait.resource_provider_id == provider_id)
    )
    return sorted(rows)


_BY_PROVIDER = sa.select(ProviderTrait).where(
    ProviderTrait.resource_provider_id.in_(sa.bindparam("providers", expanding=True))
)  # built once, the ids an expanding parameter


def by_provider(session: Session, provider_ids: Iterable[int]) -> dict[int, set[str]]:
    result: dict[int, set[str]] = {}
    for row in session.scalars(_BY_PROVIDER, {"providers": list(provider_ids)}):
        result.setdefault(row.resource_provider_id, set()).add(row.trait)
    return result


def require(session: Session, names: Iterable[str]) -> None:
    missing = sorted(n for n in set(names) if not exists(session, n))
    if missing:
        raise exception.BadRequest(f"No such trait(s): {', '.join(missing)}")


def set_for_provider(
    session: Session, provider: ResourceProvider, generation: int, names: Collection[str]
) -> list[str]:
    check_generation(provider, generation)
    require(session, names)
    bump(session, provider)
    session.execute(
        sa.delete(ProviderTrait).where(ProviderTrait.resource_provider_id == provider.id)
    )
    for name in sorted(set(names)):
        session.add(ProviderTrait(resource_provider_id=provider.id, trait=name))
    session.flush()
    return sorted(set(names))


def clear_provider(session: Session, provider: ResourceProvider) -> None:
    set_for_provider(session, provider, provider.generation, [])
