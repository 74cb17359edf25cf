"""Flavors, their extra specs and access lists, in the API database.

Rows are handed to the views as the ORM loaded them (``Flavor``); every
write flushes, so a 409 from a unique key surfaces inside the request.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from saphira.computesvc.caller import Caller
from saphira.db.api import flavors as store
from saphira.db.api.models import Flavor, FlavorExtraSpec, FlavorProject
from saphira.exception import Conflict, NotFound

__all__ = ["Flavor", "FlavorExtraSpec", "FlavorQuery", "get", "get_visible", "list_flavors"]

SORT_KEYS = frozenset({"created_at", "description", "disabled", "ephemeral_gb", "flavorid", "id",
                       "is_public", "memory_mb", "name", "root_gb", "rxtx_factor", "swap",
                       "updated_at", "vcpu_weight", "vcpus"})  # fmt: skip


@dataclass(frozen=True)
class FlavorQuery:
    """GET /flavors' filters and sort, parsed by the API."""

    is_public: bool | None = True  # None: public and private (admins only)
    min_ram: int | None = None
    min_disk: int | None = None
    sort_key: str = "flavorid"
    sort_dir: str = "asc"


def get(caller: Caller, flavorid: str) -> Flavor:
    return store.get(caller.api, flavorid)


def get_visible(caller: Caller, flavorid: str) -> Flavor:
    """The flavor if this caller may see it; a private one is a 404 to other projects."""
    context = caller.context
    return store.get_visible(caller.api, flavorid, context.project_id, context.is_admin)


def list_flavors(caller: Caller, query: FlavorQuery) -> list[Flavor]:
    stmt = sa.select(Flavor)
    if not caller.context.is_admin:
        stmt = stmt.where(store.visible_filter(caller.context.project_id))
    elif query.is_public is not None:
        stmt = stmt.where(Flavor.is_public.is_(query.is_public))
    if query.min_ram is not None:
        stmt = stmt.where(Flavor.memory_mb >= query.min_ram)
    if query.min_disk is not None:
        stmt = stmt.where(Flavor.root_gb >= query.min_disk)
    column = getattr(Flavor, query.sort_key)
    stmt = stmt.order_by(column.desc() if query.sort_dir == "desc" else column.asc(), Flavor.id)
    return list(caller.api.scalars(stmt))


def create(caller: Caller, flavor: Flavor) -> Flavor:
    """Store a new flavor; its name and id must be free (409 naming which is taken)."""
    if caller.api.scalar(sa.select(Flavor.id).filter_by(name=flavor.name)) is not None:
        raise Conflict(f"Flavor with name {flavor.name} already exists.")
    if caller.api.scalar(sa.select(Flavor.id).filter_by(flavorid=flavor.flavorid)) is not None:
        raise Conflict(f"Flavor with ID {flavor.flavorid} already exists.")
    caller.api.add(flavor)
    caller.api.flush()
    return flavor


def set_description(caller: Caller, flavorid: str, description: str | None) -> Flavor:
    flavor = get(caller, flavorid)
    flavor.description = description
    caller.api.flush()
    return flavor


def delete(caller: Caller, flavorid: str) -> None:
    caller.api.delete(get(caller, flavorid))


def set_specs(caller: Caller, flavor: Flavor, specs: dict[str, str]) -> None:
    current = {spec.key: spec for spec in flavor.extra_specs}
    for key, text in specs.items():
        if key in current:
            current[key].value = text
        else:
            flavor.extra_specs.append(FlavorExtraSpec(key=key, value=text))
    caller.api.flush()


def spec(flavor: Flavor, key: str) -> FlavorExtraSpec:
    for found in flavor.extra_specs:
        if found.key == key:
            return found
    raise NotFound(f"Flavor {flavor.flavorid} has no extra specs with key {key}.")


def delete_spec(caller: Caller, flavor: Flavor, key: str) -> None:
    flavor.extra_specs.remove(spec(flavor, key))
    caller.api.flush()


def add_access(caller: Caller, flavor: Flavor, project: str) -> None:
    if flavor.is_public:
        raise Conflict("Can not add access to a public flavor.")
    if any(p.project_id == project for p in flavor.projects):
        raise Conflict(f"Flavor access already exists for flavor {flavor.flavorid} and "
                       f"project {project} combination.")  # fmt: skip
    flavor.projects.append(FlavorProject(project_id=project))
    caller.api.flush()


def remove_access(caller: Caller, flavor: Flavor, project: str) -> None:
    for entry in flavor.projects:
        if entry.project_id == project:
            flavor.projects.remove(entry)
            caller.api.flush()
            caller.api.expire(flavor, ["projects"])
            return
    raise NotFound(f"Flavor access not found for {flavor.flavorid} / {project} combination.")
