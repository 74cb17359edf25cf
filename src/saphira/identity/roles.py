"""Roles, implied roles and role assignments.

Effective roles are the directly assigned ones plus everything they imply,
transitively (admin -> member -> reader after bootstrap), so a policy rule
that asks for "reader" is met by an admin without listing both.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.identity.models import ImpliedRole, Role, RoleAssignment
from saphira.exception import NotFound
from saphira.identity import store

USER_PROJECT = "UserProject"
USER_DOMAIN = "UserDomain"
USER_SYSTEM = "UserSystem"
SYSTEM_ALL = "all"


@dataclass(frozen=True)
class Scope:
    """Where an assignment applies: (USER_PROJECT, project id), (USER_SYSTEM, "all")..."""

    type: str
    target_id: str


def get_role(session: Session, role_id: str) -> Role:
    return store.get(session, Role, role_id, "role")


def find_role(session: Session, name: str) -> Role | None:
    return session.scalars(sa.select(Role).where(Role.name == name)).first()


def create_role(session: Session, name: str, description: str | None = None) -> Role:
    role = Role(id=store.new_id(), name=name, description=description)
    session.add(role)
    store.flush(session, "role")
    return role


def list_roles(session: Session, name: str | None = None) -> list[Role]:
    query = sa.select(Role).order_by(Role.name)
    if name is not None:
        query = query.where(Role.name == name)
    return list(session.scalars(query))


def delete_role(session: Session, role: Role) -> None:
    session.execute(sa.delete(RoleAssignment).where(RoleAssignment.role_id == role.id))
    session.execute(
        sa.delete(ImpliedRole).where(
            sa.or_(ImpliedRole.prior_role_id == role.id, ImpliedRole.implied_role_id == role.id)
        )
    )
    session.delete(role)


def imply(session: Session, prior: Role, implied: Role) -> None:
    if session.get(ImpliedRole, (prior.id, implied.id)) is None:
        session.add(ImpliedRole(prior_role_id=prior.id, implied_role_id=implied.id))
        session.flush()


def grant(session: Session, user_id: str, scope: Scope, role_id: str) -> None:
    """Idempotent, as PUT is."""
    key = (scope.type, user_id, scope.target_id, role_id)
    if session.get(RoleAssignment, key) is None:
        session.add(
            RoleAssignment(
                type=scope.type, actor_id=user_id, target_id=scope.target_id, role_id=role_id
            )
        )
        session.flush()


def check(session: Session, user_id: str, scope: Scope, role_id: str) -> bool:
    return session.get(RoleAssignment, (scope.type, user_id, scope.target_id, role_id)) is not None


def revoke(session: Session, user_id: str, scope: Scope, role_id: str) -> None:
    row = session.get(RoleAssignment, (scope.type, user_id, scope.target_id, role_id))
    if row is None:
        raise NotFound(f"Could not find role assignment with role: {role_id}.")
    session.delete(row)


def assignments(
    session: Session,
    *,
    user_id: str | None = None,
    scope: Scope | None = None,
    role_id: str | None = None,
    types: Iterable[str] | None = None,
) -> list[RoleAssignment]:
    query = sa.select(RoleAssignment).order_by(
        RoleAssignment.type, RoleAssignment.actor_id, RoleAssignment.target_id
    )
    if user_id is not None:
        query = query.where(RoleAssignment.actor_id == user_id)
    if scope is not None:
        query = query.where(
            RoleAssignment.type == scope.type, RoleAssignment.target_id == scope.target_id
        )
    if role_id is not None:
        query = query.where(RoleAssignment.role_id == role_id)
    if types is not None:
        query = query.where(RoleAssignment.type.in_(list(types)))
    return list(session.scalars(query))


def expand_implied(session: Session, role_ids: Iterable[str]) -> list[str]:
    """Role ids plus every role they imply, transitively; cycles are harmless."""
    edges: dict[str, list[str]] = {}
    for prior, implied in session.execute(
        sa.select(ImpliedRole.prior_role_id, ImpliedRole.implied_role_id)
    ):
        edges.setdefault(prior, []).append(implied)
    seen: list[str] = []
    pending = list(role_ids)
    while pending:
        role_id = pending.pop(0)
        if role_id not in seen:
            seen.append(role_id)
            pending.extend(edges.get(role_id, []))
    return seen


def effective_roles(session: Session, user_id: str, scope: Scope) -> list[Role]:
    direct = [a.role_id for a in assignments(session, user_id=user_id, scope=scope)]
    ids = expand_implied(session, direct)
    if not ids:
        return []
    rows = {r.id: r for r in session.scalars(sa.select(Role).where(Role.id.in_(ids)))}
    return [rows[i] for i in ids if i in rows]
