"""/resource_classes, /traits, and a provider's traits and aggregates."""

from __future__ import annotations

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira import exception
from saphira.api.placement import schemas
from saphira.api.placement.app import Call, route
from saphira.api.wsgi import json_response
from saphira.placement import aggregates, providers, resource_classes, traits

RC_RULE = "placement:resource_classes"
TRAIT_RULE = "placement:traits"
RP_TRAIT_RULE = "placement:resource_provider_traits"
AGG_RULE = "placement:aggregates"


def _rc_view(call: Call, name: str) -> dict[str, object]:
    href = f"{call.request.script_root}/resource_classes/{name}"
    return {"name": name, "links": [{"rel": "self", "href": href}]}


def list_classes(call: Call) -> Response:
    call.enforce(RC_RULE)
    with call.db.reader() as session:
        names = resource_classes.list_all(session)
    return json_response({"resource_classes": [_rc_view(call, n) for n in names]})


def create_class(call: Call) -> Response:
    call.require(2)
    call.enforce(RC_RULE)
    name = call.body(schemas.RESOURCE_CLASS)["name"]
    with call.db.writer() as session:
        resource_classes.create(session, name)
    location = f"{call.request.script_root}/resource_classes/{name}"
    return Response(status=201, headers={"Location": location})


def show_class(call: Call, name: str) -> Response:
    call.enforce(RC_RULE)
    with call.db.reader() as session:
        if not resource_classes.exists(session, name):
            raise exception.NotFound(f"No such resource class {name}.")
    return json_response(_rc_view(call, name))


def put_class(call: Call, name: str) -> Response:
    """1.7+: create if missing (201) or confirm (204); 1.2-1.6 renamed, not served."""
    call.require(7)
    call.enforce(RC_RULE)
    with call.db.writer() as session:
        created = resource_classes.ensure(session, name)
    location = f"{call.request.script_root}/resource_classes/{name}"
    return Response(status=201 if created else 204, headers={"Location": location})


def delete_class(call: Call, name: str) -> Response:
    call.require(2)
    call.enforce(RC_RULE)
    with call.db.writer() as session:
        resource_classes.delete(session, name)
    return Response(status=204)


def list_traits(call: Call) -> Response:
    call.require(6)
    call.enforce(TRAIT_RULE)
    names: list[str] | None = None
    prefix: str | None = None
    value = call.request.args.get("name")
    if value is not None:
        if value.startswith("in:"):
            names = [n.strip() for n in value[3:].split(",") if n.strip()]
        elif value.startswith("startswith:"):
            prefix = value[len("startswith:") :]
        else:
            raise exception.BadRequest(
                f"Badly formatted name parameter. Expected name query string parameter in form: "
                f'?name=[in|startswith]:[name1,name2|prefix]. Got: "{value}"'
            )
    associated: bool | None = None
    if "associated" in call.request.args:
        raw = call.request.args["associated"].lower()
        if raw not in ("true", "false"):
            raise exception.BadRequest(
                f"Invalid value for 'associated': {raw}. Only 'true' and 'false' are allowed."
            )
        associated = raw == "true"
    with call.db.reader() as session:
        found = traits.list_all(session, names, prefix, associated)
    return json_response({"traits": found})


def show_trait(call: Call, name: str) -> Response:
    call.require(6)
    call.enforce(TRAIT_RULE)
    with call.db.reader() as session:
        if not traits.exists(session, name):
            raise exception.NotFound(f"No such trait(s): {name}.")
    return Response(status=204)


def put_trait(call: Call, name: str) -> Response:
    call.require(6)
    call.enforce(TRAIT_RULE)
    with call.db.writer() as session:
        created = traits.ensure(session, name)
    location = f"{call.request.script_root}/traits/{name}"
    return Response(status=201 if created else 204, headers={"Location": location})


def delete_trait(call: Call, name: str) -> Response:
    call.require(6)
    call.enforce(TRAIT_RULE)
    with call.db.writer() as session:
        traits.delete(session, name)
    return Response(status=204)


def provider_traits(call: Call, uuid: str) -> Response:
    call.require(6)
    call.enforce(RP_TRAIT_RULE)
    with call.db.reader() as session:
        rp = providers.get(session, uuid)
        found = traits.of_provider(session, rp.id)
    return json_response({"traits": found, "resource_provider_generation": rp.generation})


def set_provider_traits(call: Call, uuid: str) -> Response:
    call.require(6)
    call.enforce(RP_TRAIT_RULE)
    data = call.body(schemas.PROVIDER_TRAITS)
    with call.db.writer() as session:
        rp = providers.get(session, uuid)
        found = traits.set_for_provider(
            session, rp, data["resource_provider_generation"], data["traits"]
        )
    return json_response({"traits": found, "resource_provider_generation": rp.generation})


def clear_provider_traits(call: Call, uuid: str) -> Response:
    call.require(6)
    call.enforce(RP_TRAIT_RULE)
    with call.db.writer() as session:
        traits.clear_provider(session, providers.get(session, uuid))
    return Response(status=204)


def _aggregates_body(call: Call, found: list[str], generation: int) -> dict[str, object]:
    body: dict[str, object] = {"aggregates": found}
    if call.at_least(19):
        body["resource_provider_generation"] = generation
    return body


def provider_aggregates(call: Call, uuid: str) -> Response:
    call.require(1)
    call.enforce(AGG_RULE)
    with call.db.reader() as session:
        rp = providers.get(session, uuid)
        found = aggregates.of_provider(session, rp.id)
    return json_response(_aggregates_body(call, found, rp.generation))


def set_provider_aggregates(call: Call, uuid: str) -> Response:
    call.require(1)
    call.enforce(AGG_RULE)
    if call.at_least(19):
        data = call.body(schemas.AGGREGATES)
        wanted, generation = data["aggregates"], data["resource_provider_generation"]
    else:
        wanted, generation = call.body(schemas.AGGREGATE_LIST), None
    with call.db.writer() as session:
        rp = providers.get(session, uuid)
        found = aggregates.set_for_provider(session, rp, wanted, generation)
    return json_response(_aggregates_body(call, found, rp.generation))


def routes() -> list[Rule]:
    rp = "/resource_providers/<uuid>"
    return [
        route("/resource_classes", ["GET"], list_classes),
        route("/resource_classes", ["POST"], create_class),
        route("/resource_classes/<name>", ["GET"], show_class),
        route("/resource_classes/<name>", ["PUT"], put_class),
        route("/resource_classes/<name>", ["DELETE"], delete_class),
        route("/traits", ["GET"], list_traits),
        route("/traits/<name>", ["GET"], show_trait),
        route("/traits/<name>", ["PUT"], put_trait),
        route("/traits/<name>", ["DELETE"], delete_trait),
        route(f"{rp}/traits", ["GET"], provider_traits),
        route(f"{rp}/traits", ["PUT"], set_provider_traits),
        route(f"{rp}/traits", ["DELETE"], clear_provider_traits),
        route(f"{rp}/aggregates", ["GET"], provider_aggregates),
        route(f"{rp}/aggregates", ["PUT"], set_provider_aggregates),
    ]
