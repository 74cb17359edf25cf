"""Small helpers shared by the identity data modules."""

from __future__ import annotations

import json
import uuid
from typing import Any, TypeVar

from sqlalchemy import exc
from sqlalchemy.orm import DeclarativeBase, Session

from saphira.exception import Conflict, NotFound

T = TypeVar("T", bound=DeclarativeBase)


def new_id() -> str:
    return uuid.uuid4().hex


def get(session: Session, model: type[T], ident: str, kind: str) -> T:
    """The row, or NotFound with Keystone's message ("Could not find project: x.")."""
    row = session.get(model, ident)
    if row is None:
        raise NotFound(f"Could not find {kind}: {ident}.")
    return row


def flush(session: Session, what: str) -> None:
    """Flush now so a unique-key clash is a 409 at the line that caused it."""
    try:
        session.flush()
    except exc.IntegrityError:
        raise Conflict(f"Conflict occurred attempting to store {what} - Duplicate entry.") from None


def load_extra(raw: str | None) -> dict[str, Any]:
    if not raw:
        return {}
    data = json.loads(raw)
    return data if isinstance(data, dict) else {}


def dump_extra(data: dict[str, Any]) -> str | None:
    return json.dumps(data, sort_keys=True) if data else None


def apply_update(row: Any, fields: dict[str, Any], extra: dict[str, Any]) -> None:
    """PATCH semantics for rows with an ``extra`` column: columns set, extras merged."""
    for key, value in fields.items():
        setattr(row, key, value)
    row.extra = dump_extra({**load_extra(row.extra), **extra})
