"""Keystone's JSON shapes for every resource and for a token."""

from __future__ import annotations

import datetime as dt
from typing import Any

from saphira.db.identity.models import Domain, Endpoint, Project, Region, Role, Service, User
from saphira.identity import store, user_options
from saphira.identity.auth import Ref, ScopedRef, TokenData

Body = dict[str, Any]


def isotime(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _links(base: str, path: str) -> dict[str, str]:
    return {"self": f"{base}/v3/{path}"}


def domain(base: str, row: Domain) -> Body:
    return {
        **store.load_extra(row.extra),
        "id": row.id,
        "name": row.name,
        "description": row.description or "",
        "enabled": row.enabled,
        "tags": [],
        "options": {},
        "links": _links(base, f"domains/{row.id}"),
    }


def project(base: str, row: Project) -> Body:
    extra = store.load_extra(row.extra)
    return {
        **extra,
        "id": row.id,
        "name": row.name,
        "domain_id": row.domain_id,
        "description": row.description or "",
        "enabled": row.enabled,
        "parent_id": row.parent_id or row.domain_id,
        "is_domain": False,
        "tags": extra.get("tags", []),
        "options": {},
        "links": _links(base, f"projects/{row.id}"),
    }


def user(base: str, row: User) -> Body:
    body = {
        **store.load_extra(row.extra),
        "id": row.id,
        "name": row.name,
        "domain_id": row.domain_id,
        "enabled": row.enabled,
        "password_expires_at": None,
        "options": user_options.of(row),
        "links": _links(base, f"users/{row.id}"),
    }
    if row.default_project_id:
        body["default_project_id"] = row.default_project_id
    return body


def role(base: str, row: Role) -> Body:
    return {
        "id": row.id,
        "name": row.name,
        "domain_id": None,
        "description": row.description,
        "options": {},
        "links": _links(base, f"roles/{row.id}"),
    }


def service(base: str, row: Service) -> Body:
    body: Body = {
        "id": row.id,
        "type": row.type,
        "enabled": row.enabled,
        "links": _links(base, f"services/{row.id}"),
    }
    if row.name is not None:
        body["name"] = row.name
    if row.description is not None:
        body["description"] = row.description
    return body


def endpoint(base: str, row: Endpoint) -> Body:
    return {
        "id": row.id,
        "interface": row.interface,
        "region": row.region_id,
        "region_id": row.region_id,
        "service_id": row.service_id,
        "url": row.url,
        "enabled": row.enabled,
        "links": _links(base, f"endpoints/{row.id}"),
    }


def region(base: str, row: Region) -> Body:
    return {
        "id": row.id,
        "description": row.description or "",
        "parent_region_id": row.parent_region_id,
        "links": _links(base, f"regions/{row.id}"),
    }


def _ref(ref: Ref) -> Body:
    return {"id": ref.id, "name": ref.name}


def _scoped(ref: ScopedRef) -> Body:
    return {"domain": _ref(ref.domain), "id": ref.id, "name": ref.name}


def token(data: TokenData, catalog: list[Body] | None) -> Body:
    payload = data.payload
    body: Body = {
        "methods": list(payload.methods),
        "user": {**_scoped(data.user), "password_expires_at": None},
        "audit_ids": list(payload.audit_ids),
        "expires_at": isotime(payload.expires_at),
        "issued_at": isotime(payload.issued_at),
    }
    if data.project is not None:
        body["project"] = _scoped(data.project)
        body["is_domain"] = False
    elif data.domain is not None:
        body["domain"] = _ref(data.domain)
    elif data.system is not None:
        body["system"] = {data.system: True}
    if data.roles:
        body["roles"] = [_ref(r) for r in data.roles]
    if catalog is not None and data.scope is not None:
        body["catalog"] = catalog
    return {"token": body}
