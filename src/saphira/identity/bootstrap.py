"""What `keystone-manage bootstrap` does, idempotently.

Run it again with the same arguments and nothing changes; with a new password
the admin's password is reset (and its old tokens revoked), with new URLs the
endpoints are updated, as Keystone's bootstrap does.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.identity.models import Domain, Endpoint, Project, Region, Role, Service, User
from saphira.identity import passwords, resources, roles, store, user_options, users
from saphira.identity.backend import IdentityBackend

SERVICE_NAMES = {
    "identity": "keystone",
    "compute": "nova",
    "image": "glance",
    "network": "neutron",
    "placement": "placement",
}
ROLE_CHAIN = ("admin", "member", "reader")


@dataclass(frozen=True)
class ServiceEndpoints:
    public: str
    internal: str
    admin: str


@dataclass(frozen=True)
class BootstrapResult:
    domain_id: str
    project_id: str
    user_id: str
    role_id: str


def _ensure_domain(session: Session) -> Domain:
    domain = session.get(Domain, resources.DEFAULT_DOMAIN_ID)
    if domain is None:
        domain = resources.create_domain(
            session,
            "Default",
            id=resources.DEFAULT_DOMAIN_ID,
            description="The default domain",
            enabled=True,
        )
    return domain


def _ensure_project(session: Session, name: str, domain_id: str) -> Project:
    query = sa.select(Project).where(Project.name == name, Project.domain_id == domain_id)
    project = session.scalars(query).first()
    return project or resources.create_project(session, name, domain_id, enabled=True)


def _ensure_user(
    session: Session,
    name: str,
    password: str,
    domain_id: str,
    cost: int,
    options: dict[str, Any] | None = None,
) -> User:
    query = sa.select(User).where(User.name == name, User.domain_id == domain_id)
    user = session.scalars(query).first()
    if user is None:
        user = users.create_user(session, name, domain_id, password=password, cost=cost)
    elif not passwords.verify_password(password, user.password_hash):
        users.set_password(session, user, password, cost)
    user.enabled = True
    if options:
        user_options.update(user, options)
    return user


def _ensure_role(session: Session, name: str) -> Role:
    return roles.find_role(session, name) or roles.create_role(session, name)


def _ensure_roles(session: Session, role_name: str) -> Role:
    chain = [_ensure_role(session, name) for name in ROLE_CHAIN]
    for prior, implied in itertools.pairwise(chain):
        roles.imply(session, prior, implied)
    return _ensure_role(session, role_name)


def _ensure_endpoints(
    session: Session, region_id: str, service_type: str, urls: ServiceEndpoints
) -> None:
    query = sa.select(Service).where(Service.type == service_type)
    service = session.scalars(query).first()
    if service is None:
        service = Service(
            id=store.new_id(),
            type=service_type,
            name=SERVICE_NAMES.get(service_type, service_type),
            enabled=True,
        )
        session.add(service)
        session.flush()
    for interface in ("public", "internal", "admin"):
        url = getattr(urls, interface)
        found = sa.select(Endpoint).where(
            Endpoint.service_id == service.id,
            Endpoint.interface == interface,
            Endpoint.region_id == region_id,
        )
        endpoint = session.scalars(found).first()
        if endpoint is None:
            session.add(
                Endpoint(
                    id=store.new_id(),
                    service_id=service.id,
                    interface=interface,
                    region_id=region_id,
                    url=url,
                    enabled=True,
                )
            )
        else:
            endpoint.url = url
    session.flush()


def bootstrap(
    backend: IdentityBackend,
    *,
    password: str,
    username: str = "admin",
    project_name: str = "admin",
    role_name: str = "admin",
    region_id: str = "RegionOne",
    endpoints: Mapping[str, ServiceEndpoints] | None = None,
) -> BootstrapResult:
    """Default domain, admin project/user, admin>member>reader, region and catalog."""
    with backend.session() as session:
        domain = _ensure_domain(session)
        project = _ensure_project(session, project_name, domain.id)
        user = _ensure_user(session, username, password, domain.id, backend.password_hash_cost)
        role = _ensure_roles(session, role_name)
        roles.grant(session, user.id, roles.Scope(roles.USER_PROJECT, project.id), role.id)
        roles.grant(session, user.id, roles.Scope(roles.USER_SYSTEM, roles.SYSTEM_ALL), role.id)
        if region_id and session.get(Region, region_id) is None:
            session.add(Region(id=region_id, description=""))
            session.flush()
        for service_type, urls in (endpoints or {}).items():
            _ensure_endpoints(session, region_id, service_type, urls)
        return BootstrapResult(domain.id, project.id, user.id, role.id)


def ensure_project_user(
    backend: IdentityBackend,
    *,
    project_name: str,
    username: str,
    password: str,
    role_name: str = "member",
    domain_id: str = resources.DEFAULT_DOMAIN_ID,
    options: dict[str, Any] | None = None,
) -> BootstrapResult:
    """A project and a user holding ``role_name`` on it (the ``demo`` pair of `saphira up`)."""
    with backend.session() as session:
        domain = resources.get_domain(session, domain_id)
        project = _ensure_project(session, project_name, domain.id)
        user = _ensure_user(
            session, username, password, domain.id, backend.password_hash_cost, options
        )
        role = _ensure_role(session, role_name)
        roles.grant(session, user.id, roles.Scope(roles.USER_PROJECT, project.id), role.id)
        if user.default_project_id is None:
            user.default_project_id = project.id
        return BootstrapResult(domain.id, project.id, user.id, role.id)
