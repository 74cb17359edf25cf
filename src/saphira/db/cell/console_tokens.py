"""Console tokens in a cell database: only the SHA-256 of a token is stored.

A token is looked up by its hash (an indexed equality: no comparison of the
secret itself, so no timing to learn from), and an expired row is as good as
absent. Nova keeps the same table (``console_auth_tokens``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.cell.models import ConsoleAuthToken


@dataclass(frozen=True)
class ConsoleToken:
    """What a valid token authorizes: one guest's console, until ``expires``."""

    console_type: str
    host: str
    port: int
    internal_access_path: str | None
    instance_uuid: str
    access_url_base: str | None
    expires: int  # seconds since the epoch


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def insert(session: Session, token: str, record: ConsoleToken) -> None:
    session.add(ConsoleAuthToken(token_hash=token_hash(token), **record.__dict__))
    session.flush()


def find(session: Session, token: str, now: int) -> ConsoleToken | None:
    """The live token's record; None when unknown or expired."""
    row = session.scalars(
        sa.select(ConsoleAuthToken).where(
            ConsoleAuthToken.token_hash == token_hash(token), ConsoleAuthToken.expires > now
        )
    ).first()
    if row is None:
        return None
    return ConsoleToken(row.console_type, row.host, row.port, row.internal_access_path,
                        row.instance_uuid, row.access_url_base, row.expires)  # fmt: skip


def delete_for_instance(session: Session, instance_uuid: str) -> int:
    """Every token of the instance (server deleted, moved or evacuated); how many."""
    table = ConsoleAuthToken
    result = session.execute(sa.delete(table).where(table.instance_uuid == instance_uuid))
    return int(getattr(result, "rowcount", 0) or 0)


def purge_expired(session: Session, now: int) -> int:
    """Drop every token that expired by ``now``; how many."""
    result = session.execute(sa.delete(ConsoleAuthToken).where(ConsoleAuthToken.expires <= now))
    return int(getattr(result, "rowcount", 0) or 0)
