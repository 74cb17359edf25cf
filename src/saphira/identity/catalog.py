"""Services, endpoints, regions, and the catalog a token carries."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.identity.models import Endpoint, Region, Service
from saphira.exception import BadRequest
from saphira.identity import store

INTERFACES = ("public", "internal", "admin")


def get_service(session: Session, service_id: str) -> Service:
    return store.get(session, Service, service_id, "service")


def get_endpoint(session: Session, endpoint_id: str) -> Endpoint:
    return store.get(session, Endpoint, endpoint_id, "endpoint")


def get_region(session: Session, region_id: str) -> Region:
    return store.get(session, Region, region_id, "region")


def create_service(session: Session, type: str, **fields: Any) -> Service:
    service = Service(id=store.new_id(), type=type, **fields)
    session.add(service)
    store.flush(session, "service")
    return service


def create_region(session: Session, region_id: str | None, **fields: Any) -> Region:
    parent = fields.get("parent_region_id")
    if parent:
        get_region(session, parent)
    region = Region(id=region_id or store.new_id(), **fields)
    session.add(region)
    store.flush(session, "region")
    return region


def ensure_region(session: Session, region_id: str) -> None:
    """Keystone's allowance for the v2-era ``region`` of an endpoint: made if missing."""
    if session.get(Region, region_id) is None:
        create_region(session, region_id)


def create_endpoint(
    session: Session, service_id: str, interface: str, url: str, **fields: Any
) -> Endpoint:
    get_service(session, service_id)
    if fields.get("region_id"):
        get_region(session, fields["region_id"])
    if interface not in INTERFACES:
        raise BadRequest(f"Invalid interface {interface!r}.")
    endpoint = Endpoint(
        id=store.new_id(), service_id=service_id, interface=interface, url=url, **fields
    )
    session.add(endpoint)
    store.flush(session, "endpoint")
    return endpoint


def list_rows(session: Session, model: type[Any], **filters: Any) -> list[Any]:
    query = sa.select(model).order_by(model.id)
    for key, value in filters.items():
        if value is not None:
            query = query.where(getattr(model, key) == value)
    return list(session.scalars(query))


def build_catalog(session: Session) -> list[dict[str, Any]]:
    """The v3 catalog: enabled services with their enabled endpoints."""
    services = list_rows(session, Service, enabled=True)
    endpoints = list_rows(session, Endpoint, enabled=True)
    catalog = []
    for service in sorted(services, key=lambda s: (s.type, s.id)):
        catalog.append(
            {
                "endpoints": [
                    {
                        "id": e.id,
                        "interface": e.interface,
                        "region": e.region_id,
                        "region_id": e.region_id,
                        "url": e.url,
                    }
                    for e in endpoints
                    if e.service_id == service.id
                ],
                "id": service.id,
                "type": service.type,
                "name": service.name or "",
            }
        )
    return catalog
