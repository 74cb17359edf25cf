"""Keystone's account lockout ([security_compliance] lockout_failure_attempts).

After ``attempts`` failed password logins in a row a user is locked for
``duration`` seconds from the last failure (for good when no duration is set,
until an administrator enables the user again); a locked user is refused before
the password is checked, and a successful login resets the count. The count
lives on the user's row, so every identity process sees the same lock.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import sqlalchemy as sa
from oslo_config import cfg
from sqlalchemy.orm import Session

from saphira.db.identity.models import User
from saphira.identity import user_options


@dataclass(frozen=True)
class Lockout:
    attempts: int | None  # None or 0: no lockout
    duration: int | None  # None: locked until re-enabled

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> Lockout:
        group = conf.security_compliance
        return cls(group.lockout_failure_attempts, group.lockout_duration)

    def locked(self, user: User, now: dt.datetime) -> bool:
        if not self.attempts or (user.failed_auth_count or 0) < self.attempts:
            return False
        if user_options.ignores_lockout(user):
            return False
        if self.duration is None:
            return True
        last = user.failed_auth_at
        return last is not None and last + dt.timedelta(seconds=self.duration) > now

    def record_failure(self, session: Session, user_id: str, now: dt.datetime) -> None:
        """One more failure, in one UPDATE so concurrent failures all count.

        A lock that has run out starts the count again (Keystone resets it
        when it finds the lock expired).
        """
        count = sa.func.coalesce(User.failed_auth_count, 0)
        expired: sa.ColumnElement[bool] = sa.false()
        if self.attempts and self.duration is not None:
            expired = sa.and_(
                count >= self.attempts,
                User.failed_auth_at <= now - dt.timedelta(seconds=self.duration),
            )
        session.execute(
            sa.update(User)
            .where(User.id == user_id)
            .values(
                failed_auth_count=sa.case((expired, 1), else_=count + 1),
                failed_auth_at=now,
            )
        )


def reset(session: Session, user_id: str) -> None:
    session.execute(
        sa.update(User)
        .where(User.id == user_id)
        .values(failed_auth_count=None, failed_auth_at=None)
    )
