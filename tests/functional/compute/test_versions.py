"""Version documents and microversion negotiation."""

from __future__ import annotations

import requests
from tempest.lib.api_schema.response.compute.v2_1 import flavors as flavors21
from tempest.lib.api_schema.response.compute.v2_1 import versions

from saphira.api.compute import microversion
from tests.functional.compute.conftest import Api, check

TIMEOUT = 30


def test_root_lists_both_versions(admin: Api) -> None:
    root = admin.base.rsplit("/v2.1", 1)[0]
    body = check(versions.list_versions, requests.get(f"{root}/", timeout=TIMEOUT))
    by_id = {v["id"]: v for v in body["versions"]}
    assert by_id["v2.0"]["status"] == "SUPPORTED"
    assert by_id["v2.1"]["status"] == "CURRENT"
    assert by_id["v2.1"]["version"] == str(microversion.MAX)
    assert by_id["v2.1"]["min_version"] == "2.1"
    for path in ("/v2.1", "/v2.1/", "/v2"):
        check(versions.get_one_version, requests.get(f"{root}{path}", timeout=TIMEOUT))


def test_default_version_and_headers_echoed(admin: Api) -> None:
    response = admin.call("GET", "/flavors")
    check(flavors21.list_flavors, response)
    assert response.headers["OpenStack-API-Version"] == "compute 2.1"
    assert response.headers["X-OpenStack-Nova-API-Version"] == "2.1"
    assert "OpenStack-API-Version" in response.headers["Vary"]


def test_latest_and_legacy_header(admin: Api) -> None:
    latest = admin.call("GET", "/flavors", "latest")
    assert latest.headers["OpenStack-API-Version"] == f"compute {microversion.MAX}"
    legacy = admin.call("GET", "/flavors", **{"X-OpenStack-Nova-API-Version": "2.10"})
    assert legacy.headers["X-OpenStack-Nova-API-Version"] == "2.10"


def test_out_of_range_is_406_and_garbage_400(admin: Api) -> None:
    response = admin.call("GET", "/flavors", "9.99")
    assert response.status_code == 406
    assert "is not supported by the API" in response.json()["computeFault"]["message"]
    assert admin.call("GET", "/flavors", "2.0").status_code == 406
    assert admin.call("GET", "/flavors", "two").status_code == 400


def test_unknown_and_version_gated_are_404_item_not_found(admin: Api) -> None:
    response = admin.call("GET", "/flavors/no-such-flavor")
    assert response.status_code == 404
    assert response.json()["itemNotFound"]["message"] == "Flavor no-such-flavor could not be found."
    update = admin.call("PUT", "/flavors/x", "2.54", body={"flavor": {"description": "d"}})
    assert update.status_code == 404


def test_project_id_in_url(admin: Api) -> None:
    assert admin.call("GET", f"/{admin.project_id}/flavors").status_code == 200
    assert admin.call("GET", "/someone-else/flavors").status_code == 400


def test_no_token_is_401(admin: Api) -> None:
    response = requests.get(f"{admin.base}/flavors", timeout=TIMEOUT)
    assert response.status_code == 401
