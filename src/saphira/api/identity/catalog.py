"""/v3/services, /v3/endpoints and /v3/regions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira import exception
from saphira.api.identity import schemas, views
from saphira.api.identity.app import Call, route
from saphira.api.wsgi import json_response
from saphira.db.identity.models import Endpoint, Region, Service
from saphira.identity import catalog, store

_SERVICE_FIELDS = ("type", "name", "description", "enabled")
_ENDPOINT_FIELDS = ("service_id", "interface", "url", "region_id", "enabled")
_REGION_FIELDS = ("description", "parent_region_id")


def _pick(body: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: body[k] for k in keys if k in body}


def _endpoint_fields(call: Call, body: dict[str, Any]) -> dict[str, Any]:
    fields = _pick(body, _ENDPOINT_FIELDS)
    if "region_id" not in fields and body.get("region"):
        # The v2-era name clients still send; Keystone makes such a region if missing.
        fields["region_id"] = body["region"]
        catalog.ensure_region(call.session, body["region"])
    return fields


def list_services(call: Call) -> Response:
    call.enforce("identity:list_services")
    args = call.request.args
    rows = catalog.list_rows(call.session, Service, type=args.get("type"), name=args.get("name"))
    body = [views.service(call.base, s) for s in rows]
    return json_response({"services": body, "links": call.list_links()})


def create_service(call: Call) -> Response:
    call.enforce("identity:create_service")
    fields = _pick(call.body(schemas.SERVICE_CREATE)["service"], _SERVICE_FIELDS)
    fields.setdefault("enabled", True)
    service = catalog.create_service(call.session, **fields)
    return json_response({"service": views.service(call.base, service)}, status=201)


def list_endpoints(call: Call) -> Response:
    call.enforce("identity:list_endpoints")
    args = call.request.args
    rows = catalog.list_rows(
        call.session,
        Endpoint,
        interface=args.get("interface"),
        service_id=args.get("service_id"),
        region_id=args.get("region_id"),
    )
    body = [views.endpoint(call.base, e) for e in rows]
    return json_response({"endpoints": body, "links": call.list_links()})


def create_endpoint(call: Call) -> Response:
    call.enforce("identity:create_endpoint")
    fields = _endpoint_fields(call, call.body(schemas.ENDPOINT_CREATE)["endpoint"])
    fields.setdefault("enabled", True)
    endpoint = catalog.create_endpoint(call.session, **fields)
    return json_response({"endpoint": views.endpoint(call.base, endpoint)}, status=201)


def list_regions(call: Call) -> Response:
    call.enforce("identity:list_regions")
    parent = call.request.args.get("parent_region_id")
    rows = catalog.list_rows(call.session, Region, parent_region_id=parent)
    body = [views.region(call.base, r) for r in rows]
    return json_response({"regions": body, "links": call.list_links()})


def create_region(call: Call) -> Response:
    call.enforce("identity:create_region")
    body = call.body(schemas.REGION_CREATE)["region"]
    region = catalog.create_region(call.session, body.get("id"), **_pick(body, _REGION_FIELDS))
    return json_response({"region": views.region(call.base, region)}, status=201)


def create_region_with_id(call: Call, region_id: str) -> Response:
    """PUT /v3/regions/{id}: a region whose id the caller chooses."""
    call.enforce("identity:create_region")
    body = call.body(schemas.REGION_CREATE)["region"]
    if body.get("id", region_id) != region_id:
        raise exception.BadRequest("Conflicting region IDs specified: the URL's and the body's.")
    region = catalog.create_region(call.session, region_id, **_pick(body, _REGION_FIELDS))
    return json_response({"region": views.region(call.base, region)}, status=201)


# name -> (model, getter, view, update schema, fields picker)
_Kind = tuple[type[Any], Callable[..., Any], Callable[..., Any], dict[str, Any], Callable[..., Any]]
_KINDS: dict[str, _Kind] = {
    "service": (
        Service,
        catalog.get_service,
        views.service,
        schemas.SERVICE_UPDATE,
        lambda _call, b: _pick(b, _SERVICE_FIELDS),
    ),
    "endpoint": (
        Endpoint,
        catalog.get_endpoint,
        views.endpoint,
        schemas.ENDPOINT_UPDATE,
        _endpoint_fields,
    ),
    "region": (
        Region,
        catalog.get_region,
        views.region,
        schemas.REGION_UPDATE,
        lambda _call, b: _pick(b, _REGION_FIELDS),
    ),
}


def get_one(call: Call, kind: str, ident: str) -> Response:
    _model, getter, view, _schema, _fields = _KINDS[kind]
    call.enforce(f"identity:get_{kind}")
    return json_response({kind: view(call.base, getter(call.session, ident))})


def update_one(call: Call, kind: str, ident: str) -> Response:
    _model, getter, view, schema, fields = _KINDS[kind]
    call.enforce(f"identity:update_{kind}")
    changes = fields(call, call.body(schema)[kind])
    row = getter(call.session, ident)
    if kind == "endpoint" and changes.get("service_id"):
        catalog.get_service(call.session, changes["service_id"])
    if changes.get("region_id"):
        catalog.get_region(call.session, changes["region_id"])
    for key, value in changes.items():
        setattr(row, key, value)
    store.flush(call.session, kind)
    return json_response({kind: view(call.base, row)})


def delete_one(call: Call, kind: str, ident: str) -> Response:
    _model, getter, *_ = _KINDS[kind]
    call.enforce(f"identity:delete_{kind}")
    call.session.delete(getter(call.session, ident))
    store.flush(call.session, kind)
    return Response(status=204)


def routes() -> list[Rule]:
    rules = [
        route("/v3/services", ["GET"], list_services),
        route("/v3/services", ["POST"], create_service),
        route("/v3/endpoints", ["GET"], list_endpoints),
        route("/v3/endpoints", ["POST"], create_endpoint),
        route("/v3/regions", ["GET"], list_regions),
        route("/v3/regions", ["POST"], create_region),
        route("/v3/regions/<region_id>", ["PUT"], create_region_with_id),
    ]
    for kind in _KINDS:
        path = f"/v3/{kind}s/<ident>"
        defaults = {"kind": kind}
        rules += [
            route(path, ["GET"], get_one, defaults=defaults),
            route(path, ["PATCH"], update_one, defaults=defaults),
            route(path, ["DELETE"], delete_one, defaults=defaults),
        ]
    return rules
