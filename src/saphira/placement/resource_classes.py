"""Resource classes: the standard ones from os-resource-classes, custom ones in the DB."""

from __future__ import annotations

from collections.abc import Iterable

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira import exception
from saphira.db.placement.models import Allocation, CustomResourceClass, Inventory
from saphira.placement.errors import DuplicateName
from saphira.placement.names import is_valid_custom, standard_classes


def list_all(session: Session) -> list[str]:
    custom = session.scalars(sa.select(CustomResourceClass.name).order_by(CustomResourceClass.name))
    return [*standard_classes(), *custom]


def exists(session: Session, name: str) -> bool:
    if name in standard_classes():
        return True
    return session.get(CustomResourceClass, name) is not None


def require(session: Session, names: Iterable[str]) -> None:
    """400 naming the first class that does not exist (Placement's wording)."""
    for name in names:
        if not exists(session, name):
            raise exception.BadRequest(
                f"Unknown resource class in inventory for resource provider: {name}"
            )


def _check_custom(name: str) -> None:
    if not is_valid_custom(name):
        raise exception.BadRequest(
            f"Invalid resource class name {name!r}: custom classes start with CUSTOM_ and use "
            "only A-Z, 0-9 and _."
        )


def create(session: Session, name: str) -> None:
    _check_custom(name)
    if exists(session, name):
        raise DuplicateName(f"Conflicting resource class already exists: {name}")
    session.add(CustomResourceClass(name=name))
    session.flush()


def ensure(session: Session, name: str) -> bool:
    """PUT /resource_classes/{name} (1.7): True when it was created."""
    _check_custom(name)
    if exists(session, name):
        return False
    session.add(CustomResourceClass(name=name))
    session.flush()
    return True


def delete(session: Session, name: str) -> None:
    if name in standard_classes():
        raise exception.BadRequest(f"Cannot delete standard resource class {name}: ")
    row = session.get(CustomResourceClass, name)
    if row is None:
        raise exception.NotFound(f"No such resource class {name}.")
    for model in (Inventory, Allocation):
        if session.scalar(sa.select(model.id).where(model.resource_class == name).limit(1)):
            raise exception.Conflict(
                f"Unable to delete resource class {name}. Class is in use in inventory."
            )
    session.delete(row)
    session.flush()
