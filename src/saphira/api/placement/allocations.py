"""/allocations/{consumer}, POST /allocations, provider allocations and usages."""

from __future__ import annotations

from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira import exception
from saphira.api.placement import query, schemas
from saphira.api.placement.app import Call, route
from saphira.api.wsgi import json_response
from saphira.placement import allocations, providers, usages
from saphira.placement.allocations import UNSET, ConsumerClaim

RULE = "placement:allocations"
USAGE_RULE = "placement:usages"


def show(call: Call, consumer: str) -> Response:
    call.enforce(RULE)
    with call.db.reader() as session:
        view = allocations.of_consumer(session, consumer)
    body: dict[str, Any] = {
        "allocations": {
            rp: {"generation": gen, "resources": res}
            for rp, (gen, res) in sorted(view.by_provider.items())
        }
    }
    if call.at_least(12) and view.project_id is not None:
        body["project_id"], body["user_id"] = view.project_id, view.user_id
    if call.at_least(28) and view.generation is not None:
        body["consumer_generation"] = view.generation
    return json_response(body)


def _claim(call: Call, consumer: str, data: dict[str, Any]) -> ConsumerClaim:
    if isinstance(data["allocations"], list):
        resources: dict[str, dict[str, int]] = {}
        for item in data["allocations"]:
            rp = query.normalize_uuid(item["resource_provider"]["uuid"])
            resources.setdefault(rp, {}).update(item["resources"])
    else:
        resources = {
            query.normalize_uuid(rp): dict(v["resources"]) for rp, v in data["allocations"].items()
        }
    generation = data["consumer_generation"] if call.at_least(28) else UNSET
    return ConsumerClaim(
        consumer=query.normalize_uuid(consumer, "consumer"),
        project_id=data.get("project_id") or call.context.project_id or "",
        user_id=data.get("user_id") or call.context.user_id or "",
        resources=resources,
        generation=generation,
    )


def put(call: Call, consumer: str) -> Response:
    call.enforce(RULE)
    minor = call.version.minor
    schema = schemas.allocations_dict(minor) if minor >= 12 else schemas.allocations_list(minor)
    data = call.body(schema)
    if minor < 28 and not data["allocations"]:
        raise exception.BadRequest("JSON does not validate: allocations must not be empty")
    allocations.write(call.db, [_claim(call, consumer, data)], call.retries)
    return Response(status=204)


def post(call: Call) -> Response:
    call.require(13)
    call.enforce(RULE)
    data = call.body(schemas.allocations_post(call.version.minor))
    claims = [_claim(call, consumer, entry) for consumer, entry in sorted(data.items())]
    allocations.write(call.db, claims, call.retries)
    return Response(status=204)


def delete(call: Call, consumer: str) -> Response:
    call.enforce(RULE)
    allocations.delete(call.db, consumer)
    return Response(status=204)


def provider_allocations(call: Call, uuid: str) -> Response:
    call.enforce(RULE)
    with call.db.reader() as session:
        rp = providers.get(session, uuid)
        found = allocations.of_provider(session, rp.id)
    return json_response(
        {
            "allocations": {c: {"resources": res} for c, res in sorted(found.items())},
            "resource_provider_generation": rp.generation,
        }
    )


def provider_usages(call: Call, uuid: str) -> Response:
    call.enforce(USAGE_RULE)
    with call.db.reader() as session:
        rp = providers.get(session, uuid)
        found = usages.of_provider(session, rp.id)
    return json_response({"usages": found, "resource_provider_generation": rp.generation})


def project_usages(call: Call) -> Response:
    call.require(9)
    call.enforce(USAGE_RULE)
    project = call.request.args.get("project_id")
    if not project:
        raise exception.BadRequest(
            "Invalid query string parameters: 'project_id' is a required property"
        )
    with call.db.reader() as session:
        found = usages.of_project(session, project, call.request.args.get("user_id"))
    return json_response({"usages": found})


def routes() -> list[Rule]:
    return [
        route("/allocations", ["POST"], post),
        route("/allocations/<consumer>", ["GET"], show),
        route("/allocations/<consumer>", ["PUT"], put),
        route("/allocations/<consumer>", ["DELETE"], delete),
        route("/resource_providers/<uuid>/allocations", ["GET"], provider_allocations),
        route("/resource_providers/<uuid>/usages", ["GET"], provider_usages),
        route("/usages", ["GET"], project_usages),
    ]
