"""Users and their passwords."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.identity.models import RoleAssignment, User
from saphira.exception import NotFound
from saphira.identity import passwords, resources, revoke, store
from saphira.identity.tokens import utcnow

AUTH_FAILED = "The request you have made requires authentication."


def get_user(session: Session, user_id: str) -> User:
    return store.get(session, User, user_id, "user")


def find_user(session: Session, name: str, domain_id: str) -> User:
    query = sa.select(User).where(User.name == name, User.domain_id == domain_id)
    user = session.scalars(query).first()
    if user is None:
        raise NotFound(f"Could not find user: {name}.")
    return user


def create_user(
    session: Session,
    name: str,
    domain_id: str,
    *,
    password: str | None,
    cost: int,
    **fields: Any,
) -> User:
    resources.get_domain(session, domain_id)
    user = User(
        id=store.new_id(),
        name=name,
        domain_id=domain_id,
        password_hash=passwords.hash_password(password, cost) if password else None,
        created_at=utcnow(),
        **fields,
    )
    session.add(user)
    store.flush(session, "user")
    return user


def set_password(session: Session, user: User, password: str | None, cost: int) -> None:
    """Store a new password and revoke the user's existing tokens, as Keystone does."""
    user.password_hash = passwords.hash_password(password, cost) if password else None
    revoke.revoke_user(session, user.id)


def list_users(session: Session, **filters: Any) -> list[User]:
    query = sa.select(User).order_by(User.name)
    for key, value in filters.items():
        if value is not None:
            query = query.where(getattr(User, key) == value)
    return list(session.scalars(query))


def delete_user(session: Session, user: User) -> None:
    session.execute(sa.delete(RoleAssignment).where(RoleAssignment.actor_id == user.id))
    revoke.revoke_user(session, user.id)
    session.delete(user)
