"""Revocation events, as Keystone keeps them.

A token is revoked if an event names one of its audit ids (DELETE
/v3/auth/tokens revokes the whole rescoping chain that way), or names its user
with an ``issued_before`` later than the token's issue time (password change,
user disabled). Events older than the longest token lifetime are pruned.
"""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.identity.models import RevocationEvent
from saphira.identity.tokens import TokenPayload, utcnow


def revoke_audit_id(session: Session, audit_id: str) -> None:
    now = utcnow()
    session.add(RevocationEvent(audit_id=audit_id, issued_before=now, revoked_at=now))


def revoke_user(session: Session, user_id: str) -> None:
    now = utcnow()
    session.add(RevocationEvent(user_id=user_id, issued_before=now, revoked_at=now))


def is_revoked(session: Session, payload: TokenPayload) -> bool:
    by_audit = RevocationEvent.audit_id.in_(payload.audit_ids)
    by_user = sa.and_(
        RevocationEvent.user_id == payload.user_id,
        RevocationEvent.issued_before >= payload.issued_at,
    )
    query = sa.select(RevocationEvent.id).where(sa.or_(by_audit, by_user)).limit(1)
    return session.execute(query).first() is not None


def prune(session: Session, keep_seconds: int) -> None:
    """Forget revocations older than ``keep_seconds``."""
    cutoff = utcnow() - dt.timedelta(seconds=keep_seconds)
    session.execute(sa.delete(RevocationEvent).where(RevocationEvent.revoked_at < cutoff))
