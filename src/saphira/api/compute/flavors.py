"""/flavors: list, detail, show; create, update (2.55 description), delete for admins."""

from __future__ import annotations

import uuid
from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import schemas
from saphira.api.compute.app import Call, min_version, route
from saphira.api.compute.common import bounded, paging, parse_bool, query_int
from saphira.api.wsgi import json_response
from saphira.computesvc import flavors as store
from saphira.computesvc.flavors import Flavor
from saphira.exception import BadRequest, Forbidden

_SORT_KEYS = store.SORT_KEYS


def brief(call: Call, flavor: Flavor) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": flavor.flavorid, "name": flavor.name, "links": call.links("flavors", flavor.flavorid)
    }  # fmt: skip
    if call.at_least("2.55"):
        view["description"] = flavor.description
    return view


def _may_see_specs(call: Call) -> bool:
    try:
        call.enforce("os_compute_api:os-flavor-extra-specs:index")
    except Forbidden:
        return False
    return True


def detail(call: Call, flavor: Flavor, *, specs: bool | None = None) -> dict[str, Any]:
    view = brief(call, flavor)
    view.update({
        "ram": flavor.memory_mb, "disk": flavor.root_gb, "vcpus": flavor.vcpus,
        "swap": flavor.swap if flavor.swap or call.at_least("2.75") else "",
        "OS-FLV-EXT-DATA:ephemeral": flavor.ephemeral_gb,
        "OS-FLV-DISABLED:disabled": flavor.disabled,
        "os-flavor-access:is_public": flavor.is_public,
        "rxtx_factor": flavor.rxtx_factor,
    })  # fmt: skip
    if call.at_least("2.61") and (specs if specs is not None else _may_see_specs(call)):
        view["extra_specs"] = {spec.key: spec.value for spec in flavor.extra_specs}
    return view


def _is_public_filter(call: Call) -> bool | None:
    """Nova: admins see public flavors unless they ask (is_public=none: all)."""
    value = call.request.args.get("is_public")
    if not call.context.is_admin:
        return True
    if value is None:
        return True
    if value.strip().lower() == "none":
        return None
    return parse_bool(value, "is_public")


def _query(call: Call) -> list[Flavor]:
    public = _is_public_filter(call)
    min_ram, min_disk = query_int(call, "minRam"), query_int(call, "minDisk")
    key = call.request.args.get("sort_key", "flavorid")
    direction = call.request.args.get("sort_dir", "asc")
    if key not in _SORT_KEYS or direction not in ("asc", "desc"):
        raise BadRequest(f"Invalid sort_key or sort_dir: {key} {direction}")
    query = store.FlavorQuery(public, min_ram, min_disk, key, direction)
    return store.list_flavors(call.svc, query)


def _page(call: Call, *, detailed: bool) -> Response:
    rows = _query(call)
    limit, marker = paging(call)
    if marker is not None:
        ids = [row.flavorid for row in rows]
        if marker not in ids:
            raise BadRequest(f"Marker {marker} could not be found.")
        rows = rows[ids.index(marker) + 1 :]
    page = rows[:limit]
    specs = _may_see_specs(call)
    items = [detail(call, f, specs=specs) if detailed else brief(call, f) for f in page]
    body: dict[str, Any] = {"flavors": items}
    if page and len(page) == limit and len(rows) > limit:
        body["flavors_links"] = call.next_link(
            "flavors/detail" if detailed else "flavors", page[-1].flavorid
        )
    return json_response(body)


def index(call: Call) -> Response:
    return _page(call, detailed=False)


def index_detail(call: Call) -> Response:
    return _page(call, detailed=True)


def show(call: Call, flavor_id: str) -> Response:
    return json_response({"flavor": detail(call, store.get_visible(call.svc, flavor_id))})


def _boolean(value: bool | str) -> bool:
    """A value the schema let through (schemas.BOOLEAN): a bool or one of its spellings."""
    return value if isinstance(value, bool) else value in schemas.TRUE_STRINGS


def create(call: Call) -> Response:
    call.enforce("os_compute_api:os-flavor-manage:create")
    schema = schemas.FLAVOR_CREATE_255 if call.at_least("2.55") else schemas.FLAVOR_CREATE
    data = call.body(schema)["flavor"]
    name = data["name"].strip()
    flavorid = str(data.get("id") or uuid.uuid4()).strip()
    flavor = Flavor(
        flavorid=flavorid, name=name, memory_mb=bounded(data["ram"], "memory_mb", 1),
        vcpus=bounded(data["vcpus"], "vcpus", 1), root_gb=bounded(data["disk"], "root_gb", 0),
        ephemeral_gb=bounded(data.get("OS-FLV-EXT-DATA:ephemeral", 0), "ephemeral_gb", 0),
        swap=bounded(data.get("swap", 0) or 0, "swap", 0),
        rxtx_factor=float(data.get("rxtx_factor", 1.0)),
        is_public=_boolean(data.get("os-flavor-access:is_public", True)), disabled=False,
        description=data.get("description"),
    )  # fmt: skip
    return json_response({"flavor": detail(call, store.create(call.svc, flavor))})


@min_version("2.55")
def update(call: Call, flavor_id: str) -> Response:
    call.enforce("os_compute_api:os-flavor-manage:update")
    data = call.body(schemas.FLAVOR_UPDATE)["flavor"]
    flavor = store.set_description(call.svc, flavor_id, data["description"])
    return json_response({"flavor": detail(call, flavor)})


def delete(call: Call, flavor_id: str) -> Response:
    call.enforce("os_compute_api:os-flavor-manage:delete")
    store.delete(call.svc, flavor_id)
    return Response(status=202)


def routes() -> list[Rule]:
    return [
        *route("/flavors", ["GET"], index),
        *route("/flavors", ["POST"], create),
        *route("/flavors/detail", ["GET"], index_detail),
        *route("/flavors/<flavor_id>", ["GET"], show),
        *route("/flavors/<flavor_id>", ["PUT"], update),
        *route("/flavors/<flavor_id>", ["DELETE"], delete),
    ]
