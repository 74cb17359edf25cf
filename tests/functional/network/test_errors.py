"""Every refusal in Neutron's shape with the right status; internals never leak."""

from __future__ import annotations

import pytest

from saphira.netsvc import networks
from tests.functional.network.conftest import Neutron


def test_generic_refusals(neutron: Neutron) -> None:
    assert neutron.fault("GET", "/v2.0/routers", 404) == "HTTPNotFound"
    assert neutron.fault("PATCH", "/v2.0/networks", 405) == "HTTPMethodNotAllowed"
    garbled = {"data": b"{nope", "headers": {"Content-Type": "application/json"}}
    assert neutron.fault("POST", "/v2.0/networks", 400, "admin", **garbled) == "HTTPBadRequest"
    assert neutron.fault("POST", "/v2.0/networks", 400, json={"net": {}}) == "HTTPBadRequest"
    assert neutron.fault("POST", "/v2.0/networks", 400, json={"networks": []}) == "HTTPBadRequest"
    assert neutron.fault("POST", "/v2.0/ports", 400, json={"port": {}}) == "HTTPBadRequest"
    too_big = {"network": {"name": "x" * (2 * 1024 * 1024)}}
    assert neutron.fault("POST", "/v2.0/networks", 413, json=too_big) == (
        "HTTPRequestEntityTooLarge"
    )
    wrong = {"network": {"admin_state_up": "maybe"}}
    response = neutron.call("POST", "/v2.0/networks", json=wrong)
    assert response.status_code == 400
    assert response.get_json()["NeutronError"]["message"] == (
        "Invalid input for admin_state_up. Reason: 'maybe' cannot be converted to boolean."
    )
    mismatch = {"network": {"project_id": "a", "tenant_id": "b"}}
    assert neutron.fault("POST", "/v2.0/networks", 400, json=mismatch) == "HTTPBadRequest"
    other = {"network": {"project_id": neutron.projects["alt"]}}
    assert neutron.fault("POST", "/v2.0/networks", 400, "demo", json=other) == "HTTPBadRequest"
    assert (
        neutron.ok("POST", "/v2.0/networks", 201, json=other)["network"]["project_id"]
        == (neutron.projects["alt"])
    )


def test_unexpected_errors_are_a_bare_500(
    neutron: Neutron, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: object) -> None:
        raise RuntimeError("postgresql://user:secret@db/neutron is on fire")

    monkeypatch.setattr(networks, "create", broken)
    response = neutron.call("POST", "/v2.0/networks", json={"network": {"name": "x"}})
    assert response.status_code == 500
    assert response.get_json() == {
        "NeutronError": {
            "type": "HTTPInternalServerError",
            "message": "Request Failed: internal server error while processing your request.",
            "detail": "",
        }
    }


def test_no_token_is_401(neutron: Neutron) -> None:
    response = neutron.client.get("/v2.0/networks", headers={"X-Auth-Token": "bogus"})
    assert response.status_code == 401
    assert "WWW-Authenticate" in response.headers
