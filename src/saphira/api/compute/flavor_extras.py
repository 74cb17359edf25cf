"""/flavors/{id}/os-extra_specs and os-flavor-access (with the action verbs)."""

from __future__ import annotations

from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import schemas
from saphira.api.compute.app import Call, route
from saphira.api.wsgi import json_body, json_response, validate
from saphira.db.api import flavors as store
from saphira.db.api.models import Flavor, FlavorExtraSpec, FlavorProject
from saphira.exception import BadRequest, Conflict, NotFound


def _spec_value(value: Any) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    return str(value)


def _visible(call: Call, flavor_id: str) -> Flavor:
    context = call.context
    return store.get_visible(call.session, flavor_id, context.project_id, context.is_admin)


def specs_index(call: Call, flavor_id: str) -> Response:
    call.enforce("os_compute_api:os-flavor-extra-specs:index")
    flavor = _visible(call, flavor_id)
    return json_response({"extra_specs": {s.key: s.value for s in flavor.extra_specs}})


def _set(call: Call, flavor: Flavor, specs: dict[str, Any]) -> dict[str, str]:
    current = {spec.key: spec for spec in flavor.extra_specs}
    result = {}
    for key, value in specs.items():
        text = _spec_value(value)
        if key in current:
            current[key].value = text
        else:
            flavor.extra_specs.append(FlavorExtraSpec(key=key, value=text))
        result[key] = text
    call.session.flush()
    return result


def specs_create(call: Call, flavor_id: str) -> Response:
    call.enforce("os_compute_api:os-flavor-extra-specs:create")
    data = call.body(schemas.EXTRA_SPECS)["extra_specs"]
    flavor = store.get(call.session, flavor_id)
    return json_response({"extra_specs": _set(call, flavor, data)})


def _spec(flavor: Flavor, key: str) -> FlavorExtraSpec:
    for spec in flavor.extra_specs:
        if spec.key == key:
            return spec
    raise NotFound(f"Flavor {flavor.flavorid} has no extra specs with key {key}.")


def specs_show(call: Call, flavor_id: str, key: str) -> Response:
    call.enforce("os_compute_api:os-flavor-extra-specs:show")
    spec = _spec(_visible(call, flavor_id), key)
    return json_response({spec.key: spec.value})


def specs_update(call: Call, flavor_id: str, key: str) -> Response:
    call.enforce("os_compute_api:os-flavor-extra-specs:update")
    data = call.body(schemas.EXTRA_SPEC_ONE)
    if key not in data:
        raise BadRequest("Request body and URI mismatch")
    flavor = store.get(call.session, flavor_id)
    return json_response(_set(call, flavor, data))


def specs_delete(call: Call, flavor_id: str, key: str) -> Response:
    call.enforce("os_compute_api:os-flavor-extra-specs:delete")
    flavor = store.get(call.session, flavor_id)
    flavor.extra_specs.remove(_spec(flavor, key))
    return Response(status=200)


def _access(flavor: Flavor) -> Response:
    items = [{"flavor_id": flavor.flavorid, "tenant_id": p.project_id} for p in flavor.projects]
    return json_response({"flavor_access": items})


def access_index(call: Call, flavor_id: str) -> Response:
    call.enforce("os_compute_api:os-flavor-access")
    flavor = store.get(call.session, flavor_id)
    if flavor.is_public:
        raise NotFound("Access list not available for public flavors.")
    return _access(flavor)


def _add(call: Call, flavor: Flavor, project: str) -> Response:
    if flavor.is_public:
        raise Conflict("Can not add access to a public flavor.")
    if any(p.project_id == project for p in flavor.projects):
        raise Conflict(f"Flavor access already exists for flavor {flavor.flavorid} and "
                       f"project {project} combination.")  # fmt: skip
    flavor.projects.append(FlavorProject(project_id=project))
    call.session.flush()
    return _access(flavor)


def _remove(call: Call, flavor: Flavor, project: str) -> Response:
    for entry in flavor.projects:
        if entry.project_id == project:
            flavor.projects.remove(entry)
            call.session.flush()
            call.session.expire(flavor, ["projects"])
            return _access(flavor)
    raise NotFound(f"Flavor access not found for {flavor.flavorid} / {project} combination.")


def action(call: Call, flavor_id: str) -> Response:
    data = json_body(call.request)
    # The rule before the look-up (Nova's order): a member learns nothing of a
    # private flavor's existence from a 403 against a 404.
    if isinstance(data, dict) and "addTenantAccess" in data:
        validate(data, schemas.ADD_TENANT)
        call.enforce("os_compute_api:os-flavor-access:add_tenant_access")
        flavor = store.get(call.session, flavor_id)
        return _add(call, flavor, data["addTenantAccess"]["tenant"])
    if isinstance(data, dict) and "removeTenantAccess" in data:
        validate(data, schemas.REMOVE_TENANT)
        call.enforce("os_compute_api:os-flavor-access:remove_tenant_access")
        flavor = store.get(call.session, flavor_id)
        return _remove(call, flavor, data["removeTenantAccess"]["tenant"])
    raise BadRequest("There is no such action in the request body.")


def routes() -> list[Rule]:
    specs = "/flavors/<flavor_id>/os-extra_specs"
    return [
        *route(specs, ["GET"], specs_index),
        *route(specs, ["POST"], specs_create),
        *route(f"{specs}/<key>", ["GET"], specs_show),
        *route(f"{specs}/<key>", ["PUT"], specs_update),
        *route(f"{specs}/<key>", ["DELETE"], specs_delete),
        *route("/flavors/<flavor_id>/os-flavor-access", ["GET"], access_index),
        *route("/flavors/<flavor_id>/action", ["POST"], action),
    ]
