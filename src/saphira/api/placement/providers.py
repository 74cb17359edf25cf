"""/ and /resource_providers[/{uuid}]."""

from __future__ import annotations

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira import exception
from saphira.api.placement import microversion, query, schemas, views
from saphira.api.placement.app import Call, route
from saphira.api.wsgi import json_response
from saphira.placement import providers, resource_classes, traits
from saphira.placement.providers import ProviderFilter

RULE = "placement:resource_providers"
_FILTERS = {"name": 0, "uuid": 0, "member_of": 3, "resources": 4, "in_tree": 14, "required": 18}


def root(call: Call) -> Response:
    """The version document; no token needed (clients discover with it)."""
    return json_response(
        {
            "versions": [
                {
                    "id": "v1.0",
                    "max_version": microversion.version_string(microversion.MAX),
                    "min_version": microversion.version_string(microversion.MIN),
                    "status": "CURRENT",
                    "links": [{"rel": "self", "href": ""}],
                }
            ]
        }
    )


def _filter(call: Call) -> ProviderFilter:
    args = call.request.args
    for key in args:
        if key not in _FILTERS or not call.at_least(_FILTERS[key]):
            raise exception.BadRequest(
                f"Invalid query string parameters: Additional properties are not allowed "
                f"('{key}' was unexpected)"
            )
    flt = ProviderFilter(name=args.get("name"))
    if "uuid" in args:
        flt.uuid = query.normalize_uuid(args["uuid"])
    if "in_tree" in args:
        flt.in_tree = query.normalize_uuid(args["in_tree"], "in_tree")
    if "member_of" in args:
        values = args.getlist("member_of") if call.at_least(24) else [args["member_of"]]
        flt.member_of, flt.not_member_of = query.member_of(values, call.at_least(32))
    if "resources" in args:
        flt.resources = query.resources(args["resources"])
    if "required" in args:
        flt.required, flt.forbidden = query.traits(args["required"], call.at_least(22))
    return flt


def list_providers(call: Call) -> Response:
    call.enforce(RULE)
    flt = _filter(call)
    with call.db.reader() as session:
        if flt.resources:
            resource_classes.require(session, flt.resources)
        traits.require(session, flt.required | flt.forbidden)
        found = providers.list_providers(session, flt)
        uuids = providers.uuid_map(session)
        body = [views.provider(call, rp, uuids) for rp in found]
    return json_response({"resource_providers": body})


def create(call: Call) -> Response:
    call.enforce(RULE)
    data = call.body(schemas.provider_create(call.at_least(14)))
    uuid = query.normalize_uuid(data["uuid"]) if data.get("uuid") else None
    parent = data.get("parent_provider_uuid")
    with call.db.writer() as session:
        rp = providers.create(
            session, data["name"], uuid, query.normalize_uuid(parent) if parent else None
        )
        body = views.provider(call, rp, providers.uuid_map(session))
    location = f"{call.request.script_root}/resource_providers/{rp.uuid}"
    if call.at_least(20):
        return json_response(body, 200, headers={"Location": location})
    return Response(status=201, headers={"Location": location})


def show(call: Call, uuid: str) -> Response:
    call.enforce(RULE)
    with call.db.reader() as session:
        rp = providers.get(session, uuid)
        body = views.provider(call, rp, providers.uuid_map(session))
    return json_response(body)


def update(call: Call, uuid: str) -> Response:
    call.enforce(RULE)
    data = call.body(schemas.provider_update(call.at_least(14)))
    parent = data.get("parent_provider_uuid")
    with call.db.writer() as session:
        rp = providers.get(session, uuid)
        providers.update(
            session,
            rp,
            data["name"],
            query.normalize_uuid(parent) if parent else None,
            parent_given="parent_provider_uuid" in data,
        )
        body = views.provider(call, rp, providers.uuid_map(session))
    return json_response(body)


def delete(call: Call, uuid: str) -> Response:
    call.enforce(RULE)
    with call.db.writer() as session:
        providers.delete(session, providers.get(session, uuid))
    return Response(status=204)


def routes() -> list[Rule]:
    base = "/resource_providers/<uuid>"
    return [
        route("/", ["GET"], root, public=True),
        route("/resource_providers", ["GET"], list_providers),
        route("/resource_providers", ["POST"], create),
        route(base, ["GET"], show),
        route(base, ["PUT"], update),
        route(base, ["DELETE"], delete),
    ]
