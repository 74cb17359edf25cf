"""Key pairs: a user's, read and written in the API database; a create claims
``key_pairs`` quota under the project's lock."""

from __future__ import annotations

import sqlalchemy as sa

from saphira.computesvc.caller import Caller
from saphira.db.api.models import KeyPair
from saphira.db.api.quota import OverQuota, QuotaEngine, Scope
from saphira.exception import Conflict, NotFound

__all__ = ["KeyPair", "create", "delete", "get", "list_keypairs"]


def get(caller: Caller, name: str, user_id: str) -> KeyPair:
    stmt = sa.select(KeyPair).filter_by(user_id=user_id, name=name)
    row = caller.api.scalars(stmt).first()
    if row is None:
        raise NotFound(f"Keypair {name} not found for user {user_id}")
    return row


def list_keypairs(caller: Caller, user_id: str) -> list[KeyPair]:
    """The user's key pairs by name."""
    stmt = sa.select(KeyPair).filter_by(user_id=user_id).order_by(KeyPair.name)
    return list(caller.api.scalars(stmt))


def create(quota: QuotaEngine, caller: Caller, owner: str, name: str, *, fingerprint: str,
           public_key: str, key_type: str) -> None:  # fmt: skip
    """Store the key pair; 409 if the user has one of that name, 403 over quota."""
    scope = Scope(caller.context.project_id or "", owner)
    try:
        with quota.reserve(caller.directory.api_db, scope, {"key_pairs": 1}) as session:
            if session.scalar(sa.select(KeyPair.id).filter_by(user_id=owner, name=name)):
                raise Conflict(f"Key pair '{name}' already exists.")
            session.add(KeyPair(name=name, user_id=owner, fingerprint=fingerprint,
                                public_key=public_key, type=key_type))  # fmt: skip
    except OverQuota:
        raise OverQuota("Quota exceeded, too many key pairs.") from None


def delete(caller: Caller, row: KeyPair) -> None:
    caller.api.delete(row)
