"""Key pairs: a user's, read and written in the API database; a create claims
``key_pairs`` quota under the project's lock."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import sqlalchemy as sa

from saphira.computesvc.caller import Caller
from saphira.db.api import models
from saphira.db.api.quota import OverQuota, QuotaEngine, Scope
from saphira.exception import Conflict, NotFound

__all__ = ["KeyPair", "create", "delete", "get", "list_keypairs"]


@dataclass(frozen=True)
class KeyPair:
    """A user's key pair as the API shows it."""

    id: int
    name: str
    user_id: str
    fingerprint: str | None
    public_key: str | None
    type: str
    created_at: dt.datetime | None
    updated_at: dt.datetime | None

    @classmethod
    def of(cls, row: models.KeyPair) -> KeyPair:
        return cls(row.id, row.name, row.user_id, row.fingerprint, row.public_key, row.type,
                   row.created_at, row.updated_at)  # fmt: skip


def _row(caller: Caller, name: str, user_id: str) -> models.KeyPair:
    stmt = sa.select(models.KeyPair).filter_by(user_id=user_id, name=name)
    row = caller.api.scalars(stmt).first()
    if row is None:
        raise NotFound(f"Keypair {name} not found for user {user_id}")
    return row


def get(caller: Caller, name: str, user_id: str) -> KeyPair:
    return KeyPair.of(_row(caller, name, user_id))


def list_keypairs(caller: Caller, user_id: str) -> list[KeyPair]:
    """The user's key pairs by name."""
    table = models.KeyPair
    stmt = sa.select(table).filter_by(user_id=user_id).order_by(table.name)
    return [KeyPair.of(row) for row in caller.api.scalars(stmt)]


def create(quota: QuotaEngine, caller: Caller, owner: str, name: str, *, fingerprint: str,
           public_key: str, key_type: str) -> None:  # fmt: skip
    """Store the key pair; 409 if the user has one of that name, 403 over quota."""
    scope = Scope(caller.context.project_id or "", owner)
    try:
        with quota.reserve(caller.directory.api_db, scope, {"key_pairs": 1}) as session:
            if session.scalar(sa.select(models.KeyPair.id).filter_by(user_id=owner, name=name)):
                raise Conflict(f"Key pair '{name}' already exists.")
            session.add(models.KeyPair(name=name, user_id=owner, fingerprint=fingerprint,
                                public_key=public_key, type=key_type))  # fmt: skip
    except OverQuota:
        raise OverQuota("Quota exceeded, too many key pairs.") from None


def delete(caller: Caller, name: str, user_id: str) -> None:
    """Delete the user's key pair ``name`` (404 if there is none)."""
    caller.api.delete(_row(caller, name, user_id))
