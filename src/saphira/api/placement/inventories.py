"""/resource_providers/{uuid}/inventories[/{resource_class}]."""

from __future__ import annotations

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira import exception
from saphira.api.placement import schemas, views
from saphira.api.placement.app import Call, route
from saphira.api.wsgi import json_response
from saphira.placement import inventories, providers

RULE = "placement:inventories"


def list_inventories(call: Call, uuid: str) -> Response:
    call.enforce(RULE)
    with call.db.reader() as session:
        rp = providers.get(session, uuid)
        return json_response(views.inventories(rp, inventories.get_all(session, rp)))


def replace(call: Call, uuid: str) -> Response:
    call.enforce(RULE)
    data = call.body(schemas.INVENTORIES)
    with call.db.writer() as session:
        rp = providers.get(session, uuid)
        found = inventories.replace_all(
            session,
            rp,
            data["resource_provider_generation"],
            data["inventories"],
            reserved_may_equal_total=call.at_least(26),
        )
        return json_response(views.inventories(rp, found))


def create(call: Call, uuid: str) -> Response:
    call.enforce(RULE)
    data = dict(call.body(schemas.INVENTORY_POST))
    rc = data.pop("resource_class")
    with call.db.writer() as session:
        rp = providers.get(session, uuid)
        inv = inventories.set_one(
            session,
            rp,
            rp.generation,
            rc,
            data,
            create=True,
            reserved_may_equal_total=call.at_least(26),
        )
        body = views.inventory(rp, inv)
    location = f"{call.request.script_root}/resource_providers/{uuid}/inventories/{rc}"
    return json_response(body, 201, headers={"Location": location})


def delete_all(call: Call, uuid: str) -> Response:
    call.require(5)
    call.enforce(RULE)
    with call.db.writer() as session:
        inventories.delete_all(session, providers.get(session, uuid))
    return Response(status=204)


def show(call: Call, uuid: str, rc: str) -> Response:
    call.enforce(RULE)
    with call.db.reader() as session:
        rp = providers.get(session, uuid)
        inv = inventories.get_all(session, rp).get(rc)
        if inv is None:
            raise exception.NotFound(f"No inventory of class {rc} for {uuid}")
        return json_response(views.inventory(rp, inv))


def update(call: Call, uuid: str, rc: str) -> Response:
    call.enforce(RULE)
    data = dict(call.body(schemas.INVENTORY_PUT))
    generation = data.pop("resource_provider_generation")
    with call.db.writer() as session:
        rp = providers.get(session, uuid)
        inv = inventories.set_one(
            session,
            rp,
            generation,
            rc,
            data,
            create=False,
            reserved_may_equal_total=call.at_least(26),
        )
        return json_response(views.inventory(rp, inv))


def delete(call: Call, uuid: str, rc: str) -> Response:
    call.enforce(RULE)
    with call.db.writer() as session:
        inventories.delete_one(session, providers.get(session, uuid), rc)
    return Response(status=204)


def routes() -> list[Rule]:
    base = "/resource_providers/<uuid>/inventories"
    return [
        route(base, ["GET"], list_inventories),
        route(base, ["PUT"], replace),
        route(base, ["POST"], create),
        route(base, ["DELETE"], delete_all),
        route(f"{base}/<rc>", ["GET"], show),
        route(f"{base}/<rc>", ["PUT"], update),
        route(f"{base}/<rc>", ["DELETE"], delete),
    ]
