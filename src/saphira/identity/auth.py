"""Issuing and validating tokens against the current state of the database.

A token is only as good as what it names: validation re-checks expiry,
revocation events, that the user, its domain and the scope are still enabled,
and that the user still holds a role on the scope (roles come from the
database at validation time, not from the token).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy.orm import Session

from saphira.context import RequestContext
from saphira.db.identity.models import Project, User
from saphira.exception import Unauthorized
from saphira.identity import resources, revoke, roles, users
from saphira.identity.roles import Scope
from saphira.identity.tokens import TokenPayload, TokenProvider, new_audit_id, utcnow

AUTH_FAILED = users.AUTH_FAILED


@dataclass(frozen=True)
class Ref:
    id: str
    name: str


@dataclass(frozen=True)
class ScopedRef:
    """A user or project, with its domain."""

    id: str
    name: str
    domain: Ref


@dataclass(frozen=True)
class TokenData:
    """A validated token: the payload plus the names and roles it resolves to now."""

    token: str
    payload: TokenPayload
    user: ScopedRef
    project: ScopedRef | None
    domain: Ref | None
    roles: tuple[Ref, ...]

    @property
    def system(self) -> str | None:
        return self.payload.system

    @property
    def scope(self) -> Scope | None:
        return scope_of(self.payload)

    def to_context(self, request_id: str, global_request_id: str | None = None) -> RequestContext:
        return RequestContext(
            request_id=request_id,
            user_id=self.user.id,
            user_name=self.user.name,
            user_domain_id=self.user.domain.id,
            project_id=self.project.id if self.project else None,
            project_name=self.project.name if self.project else None,
            project_domain_id=self.project.domain.id if self.project else None,
            domain_id=self.domain.id if self.domain else None,
            system_scope=self.system,
            roles=tuple(r.name for r in self.roles),
            auth_token=self.token,
            global_request_id=global_request_id,
        )


def scope_of(payload: TokenPayload) -> roles.Scope | None:
    if payload.project_id:
        return roles.Scope(roles.USER_PROJECT, payload.project_id)
    if payload.domain_id:
        return roles.Scope(roles.USER_DOMAIN, payload.domain_id)
    if payload.system:
        return roles.Scope(roles.USER_SYSTEM, payload.system)
    return None


def _domain_ref(session: Session, domain_id: str) -> Ref:
    domain = resources.get_domain(session, domain_id)
    if not domain.enabled:
        raise Unauthorized(AUTH_FAILED)
    return Ref(domain.id, domain.name)


def resolve(session: Session, token: str, payload: TokenPayload) -> TokenData:
    """Names and effective roles for a payload; Unauthorized if anything is gone."""
    user = session.get(User, payload.user_id)
    if user is None or not user.enabled:
        raise Unauthorized(AUTH_FAILED)
    user_ref = ScopedRef(user.id, user.name, _domain_ref(session, user.domain_id))
    project_ref = domain_ref = None
    if payload.project_id:
        project = session.get(Project, payload.project_id)
        if project is None or not project.enabled:
            raise Unauthorized(AUTH_FAILED)
        project_ref = ScopedRef(project.id, project.name, _domain_ref(session, project.domain_id))
    elif payload.domain_id:
        domain_ref = _domain_ref(session, payload.domain_id)
    scope = scope_of(payload)
    role_refs: tuple[Ref, ...] = ()
    if scope is not None:
        role_refs = tuple(Ref(r.id, r.name) for r in roles.effective_roles(session, user.id, scope))
        if not role_refs:
            raise Unauthorized(AUTH_FAILED)
    return TokenData(token, payload, user_ref, project_ref, domain_ref, role_refs)


def validate(
    session: Session, provider: TokenProvider, token: str, expired_window: int = 0
) -> TokenData:
    """``expired_window``: seconds past its expiry the token still counts."""
    payload = provider.decode(token)
    if payload.expires_at + dt.timedelta(seconds=expired_window) <= utcnow():
        raise Unauthorized("The request you have made requires authentication.")
    if revoke.is_revoked(session, payload):
        raise Unauthorized("The request you have made requires authentication.")
    return resolve(session, token, payload)


def issue(
    session: Session,
    provider: TokenProvider,
    *,
    user_id: str,
    methods: tuple[str, ...],
    scope: roles.Scope | None,
    expiration: int,
    parent: TokenPayload | None = None,
) -> TokenData:
    """A new token; with ``parent`` (token method) it keeps the parent's expiry and audit chain."""
    now = utcnow()
    expires_at = now + dt.timedelta(seconds=expiration)
    audit_ids: tuple[str, ...] = (new_audit_id(),)
    if parent is not None:
        expires_at = parent.expires_at
        audit_ids = (audit_ids[0], parent.audit_ids[-1])
    payload = TokenPayload(
        user_id=user_id,
        methods=methods,
        expires_at=expires_at,
        issued_at=now,
        audit_ids=audit_ids,
        project_id=scope.target_id if scope and scope.type == roles.USER_PROJECT else None,
        domain_id=scope.target_id if scope and scope.type == roles.USER_DOMAIN else None,
        system=scope.target_id if scope and scope.type == roles.USER_SYSTEM else None,
    )
    return resolve(session, provider.issue(payload), payload)
