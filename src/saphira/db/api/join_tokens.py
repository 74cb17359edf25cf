"""Join tokens in the API database: made by saphira-manage, redeemed once by a node.

A token is an id and a random secret; only the secret's SHA-256 is stored
(the secret has 256 bits of entropy, so a plain hash is enough and is
compared in constant time). ``redeem`` marks the token used in one guarded
UPDATE (unused and unexpired), so two nodes racing with one token cannot
both win; an unknown id, a wrong secret, an expired or a used token are the
same ``ComputeTokenInvalid`` (nothing tells a forger which).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
import uuid

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.api.models import ComputeJoinToken
from saphira.exception import ComputeTokenInvalid

MAX_TTL = 24 * 3600


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def create(session: Session, ttl: int, now: dt.datetime | None = None) -> tuple[str, str]:
    """A new token's (id, secret); the secret is shown once and never stored."""
    if not 0 < ttl <= MAX_TTL:
        raise ValueError(f"ttl must be between 1 and {MAX_TTL} seconds, not {ttl}")
    now = now or _now()
    token_id, secret = str(uuid.uuid4()), secrets.token_urlsafe(32)
    session.add(ComputeJoinToken(id=token_id, secret_hash=_hash(secret), created_at=now,
                                 expires_at=now + dt.timedelta(seconds=ttl)))  # fmt: skip
    return token_id, secret


def redeem(
    session: Session, token_id: str, secret: str, by: str, now: dt.datetime | None = None
) -> None:
    """Use the token once, or raise ComputeTokenInvalid."""
    now = now or _now()
    row = session.get(ComputeJoinToken, token_id)
    if row is None or not hmac.compare_digest(row.secret_hash, _hash(secret)):
        raise ComputeTokenInvalid()
    done = session.execute(
        sa.update(ComputeJoinToken)
        .where(ComputeJoinToken.id == token_id, ComputeJoinToken.used_at.is_(None),
               ComputeJoinToken.expires_at > now)
        .values(used_at=now, used_by=by[:255])
    )  # fmt: skip
    if done.rowcount != 1:  # type: ignore[attr-defined]
        raise ComputeTokenInvalid()
