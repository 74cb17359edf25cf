"""Versions, auth, policy and error shapes of the placement API."""

from __future__ import annotations

from tests.functional.placement.conftest import Placement


def test_root_needs_no_token_and_names_versions(placement: Placement) -> None:
    response = placement.client.get("/")
    assert response.status_code == 200
    version = response.get_json()["versions"][0]
    assert version["min_version"] == "1.0"
    assert tuple(int(p) for p in version["max_version"].split(".")) >= (1, 36)


def test_version_is_echoed_and_varies(placement: Placement) -> None:
    response = placement.call("GET", "/resource_providers", version="placement 1.14")
    assert response.headers["OpenStack-API-Version"] == "placement 1.14"
    assert "openstack-api-version" in response.headers["Vary"]
    default = placement.call("GET", "/resource_providers", version=None)
    assert default.headers["OpenStack-API-Version"] == "placement 1.0"
    latest = placement.call("GET", "/resource_providers", version="placement latest")
    assert latest.headers["OpenStack-API-Version"] == "placement 1.36"


def test_bad_and_unknown_versions(placement: Placement) -> None:
    assert placement.call("GET", "/resource_providers", version="placement 1.x").status_code == 400
    assert placement.call("GET", "/resource_providers", version="placement 2.0").status_code == 406


def test_no_token_is_401(placement: Placement) -> None:
    assert placement.client.get("/resource_providers").status_code == 401


def test_non_admin_is_403(placement: Placement) -> None:
    demo = placement.identity.demo_token()
    response = placement.call("GET", "/resource_providers", token=demo)
    assert response.status_code == 403
    error = response.get_json()["errors"][0]
    assert error["status"] == 403 and error["title"] == "Forbidden"


def test_error_shape_has_code_from_1_23(placement: Placement) -> None:
    missing = "/resource_providers/7d1e0b3c-5a8f-4f53-9f1a-1b2c3d4e5f60"
    new = placement.call("GET", missing, version="placement 1.23")
    assert new.status_code == 404
    error = new.get_json()["errors"][0]
    assert error["code"] == "placement.undefined_code"
    assert error["request_id"].startswith("req-")
    assert error["request_id"] == new.headers["X-OpenStack-Request-Id"]
    old = placement.call("GET", missing, version="placement 1.22")
    assert "code" not in old.get_json()["errors"][0]
