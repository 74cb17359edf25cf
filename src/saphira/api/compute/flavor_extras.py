"""/flavors/{id}/os-extra_specs and os-flavor-access (with the action verbs)."""

from __future__ import annotations

from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.compute import schemas
from saphira.api.compute.app import Call, route
from saphira.api.wsgi import json_body, json_response, validate
from saphira.computesvc import flavors as store
from saphira.computesvc.flavors import Flavor
from saphira.exception import BadRequest, NotFound


def _spec_value(value: Any) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    return str(value)


def _visible(call: Call, flavor_id: str) -> Flavor:
    return store.get_visible(call.svc, flavor_id)


def specs_index(call: Call, flavor_id: str) -> Response:
    call.enforce("os_compute_api:os-flavor-extra-specs:index")
    flavor = _visible(call, flavor_id)
    return json_response({"extra_specs": {s.key: s.value for s in flavor.extra_specs}})


def _set(call: Call, flavor: Flavor, specs: dict[str, Any]) -> dict[str, str]:
    result = {key: _spec_value(value) for key, value in specs.items()}
    store.set_specs(call.svc, flavor, result)
    return result


def specs_create(call: Call, flavor_id: str) -> Response:
    call.enforce("os_compute_api:os-flavor-extra-specs:create")
    data = call.body(schemas.EXTRA_SPECS)["extra_specs"]
    flavor = store.get(call.svc, flavor_id)
    return json_response({"extra_specs": _set(call, flavor, data)})


def specs_show(call: Call, flavor_id: str, key: str) -> Response:
    call.enforce("os_compute_api:os-flavor-extra-specs:show")
    spec = store.spec(_visible(call, flavor_id), key)
    return json_response({spec.key: spec.value})


def specs_update(call: Call, flavor_id: str, key: str) -> Response:
    call.enforce("os_compute_api:os-flavor-extra-specs:update")
    data = call.body(schemas.EXTRA_SPEC_ONE)
    if key not in data:
        raise BadRequest("Request body and URI mismatch")
    flavor = store.get(call.svc, flavor_id)
    return json_response(_set(call, flavor, data))


def specs_delete(call: Call, flavor_id: str, key: str) -> Response:
    call.enforce("os_compute_api:os-flavor-extra-specs:delete")
    store.delete_spec(call.svc, store.get(call.svc, flavor_id), key)
    return Response(status=200)


def _access(flavor: Flavor) -> Response:
    items = [{"flavor_id": flavor.flavorid, "tenant_id": p.project_id} for p in flavor.projects]
    return json_response({"flavor_access": items})


def access_index(call: Call, flavor_id: str) -> Response:
    call.enforce("os_compute_api:os-flavor-access")
    flavor = store.get(call.svc, flavor_id)
    if flavor.is_public:
        raise NotFound("Access list not available for public flavors.")
    return _access(flavor)


def _add(call: Call, flavor: Flavor, project: str) -> Response:
    store.add_access(call.svc, flavor, project)
    return _access(flavor)


def _remove(call: Call, flavor: Flavor, project: str) -> Response:
    store.remove_access(call.svc, flavor, project)
    return _access(flavor)


def action(call: Call, flavor_id: str) -> Response:
    data = json_body(call.request)
    # The rule before the look-up (Nova's order): a member learns nothing of a
    # private flavor's existence from a 403 against a 404.
    if isinstance(data, dict) and "addTenantAccess" in data:
        validate(data, schemas.ADD_TENANT)
        call.enforce("os_compute_api:os-flavor-access:add_tenant_access")
        flavor = store.get(call.svc, flavor_id)
        return _add(call, flavor, data["addTenantAccess"]["tenant"])
    if isinstance(data, dict) and "removeTenantAccess" in data:
        validate(data, schemas.REMOVE_TENANT)
        call.enforce("os_compute_api:os-flavor-access:remove_tenant_access")
        flavor = store.get(call.svc, flavor_id)
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
