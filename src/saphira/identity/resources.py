"""Domains and projects."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.identity.models import Domain, Project, RoleAssignment, User
from saphira.exception import BadRequest, Forbidden, NotFound
from saphira.identity import store

DEFAULT_DOMAIN_ID = "default"


def get_domain(session: Session, domain_id: str) -> Domain:
    return store.get(session, Domain, domain_id, "domain")


def find_domain(session: Session, *, domain_id: str | None, name: str | None) -> Domain:
    if domain_id:
        return get_domain(session, domain_id)
    domain = session.scalars(sa.select(Domain).where(Domain.name == name)).first()
    if domain is None:
        raise NotFound(f"Could not find domain: {name}.")
    return domain


def create_domain(session: Session, name: str, **fields: Any) -> Domain:
    domain = Domain(id=fields.pop("id", None) or store.new_id(), name=name, **fields)
    session.add(domain)
    store.flush(session, "domain")
    return domain


def delete_domain(session: Session, domain: Domain) -> None:
    if domain.enabled:
        raise Forbidden("Cannot delete a domain that is enabled, please disable it first.")
    owned = sa.select(Project.id).where(Project.domain_id == domain.id).limit(1)
    users = sa.select(User.id).where(User.domain_id == domain.id).limit(1)
    if session.execute(owned).first() or session.execute(users).first():
        raise Forbidden("Cannot delete a domain that still owns projects or users.")
    _drop_assignments(session, domain.id)
    session.delete(domain)


def get_project(session: Session, project_id: str) -> Project:
    return store.get(session, Project, project_id, "project")


def find_project(
    session: Session, *, project_id: str | None, name: str | None, domain_id: str | None
) -> Project:
    if project_id:
        return get_project(session, project_id)
    query = sa.select(Project).where(Project.name == name, Project.domain_id == domain_id)
    project = session.scalars(query).first()
    if project is None:
        raise NotFound(f"Could not find project: {name}.")
    return project


def create_project(session: Session, name: str, domain_id: str, **fields: Any) -> Project:
    get_domain(session, domain_id)
    parent_id = fields.get("parent_id")
    if parent_id:
        parent = get_project(session, parent_id)
        if parent.domain_id != domain_id:
            raise BadRequest("Cannot create project with parent in a different domain.")
    project = Project(id=store.new_id(), name=name, domain_id=domain_id, **fields)
    session.add(project)
    store.flush(session, "project")
    return project


def list_projects(session: Session, **filters: Any) -> list[Project]:
    query = sa.select(Project).order_by(Project.name)
    for key, value in filters.items():
        if value is not None:
            query = query.where(getattr(Project, key) == value)
    return list(session.scalars(query))


def delete_project(session: Session, project: Project) -> None:
    child = sa.select(Project.id).where(Project.parent_id == project.id).limit(1)
    if session.execute(child).first():
        raise Forbidden("Cannot delete a project that has child projects.")
    _drop_assignments(session, project.id)
    session.delete(project)


def _drop_assignments(session: Session, target_id: str) -> None:
    session.execute(sa.delete(RoleAssignment).where(RoleAssignment.target_id == target_id))
