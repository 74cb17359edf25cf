"""Password logins: who may try, the password check, and what a failure costs.

A source address over its failure budget is refused first (429), a user
locked by Keystone's lockout next (401 "The account is locked ..."): neither
computes a password hash, so a flood of guesses costs the server almost
nothing. Failures are recorded in their own transaction, so the 401 that
rolls the request back does not roll the count back with it.
"""

from __future__ import annotations

import math

from sqlalchemy.orm import Session

from saphira.db.identity.models import User
from saphira.exception import AccountLocked, TooManyRequests, Unauthorized
from saphira.identity import lockout, resources
from saphira.identity.backend import IdentityBackend
from saphira.identity.tokens import utcnow
from saphira.identity.users import AUTH_FAILED


def check_password(
    backend: IdentityBackend, session: Session, user: User | None, password: str, source: str
) -> User:
    """The user if the password is right and user and domain are enabled; else an error."""
    wait = backend.login_sources.retry_after(source)
    if wait is not None:
        seconds = max(math.ceil(wait), 1)
        raise TooManyRequests(
            f"Too many failed logins from {source}; retry after {seconds} seconds.",
            retry_after=seconds,
        )
    try:
        return _check(backend, session, user, password)
    except Unauthorized:
        backend.login_sources.failed(source)
        raise


def _check(backend: IdentityBackend, session: Session, user: User | None, password: str) -> User:
    if user is None:
        # An unknown user costs one hash too, so timing does not tell which names exist.
        backend.hasher.hash(password, backend.password_hash_cost)
        raise Unauthorized(AUTH_FAILED)
    now = utcnow()
    if backend.lockout.locked(user, now):
        raise AccountLocked(user_id=user.id)
    if not backend.hasher.verify(password, user.password_hash):
        with backend.session() as own:
            backend.lockout.record_failure(own, user.id, now)
        raise Unauthorized(AUTH_FAILED)
    if not user.enabled or not resources.get_domain(session, user.domain_id).enabled:
        raise Unauthorized(AUTH_FAILED)
    if user.failed_auth_count:
        with backend.session() as own:
            lockout.reset(own, user.id)
    return user
