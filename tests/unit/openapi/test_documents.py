"""Every API's OpenAPI document is valid OpenAPI 3.1 and describes every route."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from openapi_spec_validator import validate
from werkzeug.test import Client

from saphira.api.compute import server_query
from saphira.api.image.app import Settings
from saphira.api.openapi import (
    PATH,
    OpenAPIFirst,
    compute_admin_answers,
    compute_answers,
    compute_proxy_answers,
    compute_server_answers,
    document,
)
from saphira.api.openapi.model import JSON, ApiSpec
from saphira.api.openapi.paths import methods, template
from saphira.api.openapi.specs import FIXED, image_spec

SETTINGS = Settings(
    disk_formats=("raw", "qcow2"),
    container_formats=("bare",),
    limit_default=25,
    limit_max=1000,
    count_quota=-1,
    member_quota=-1,
    property_quota=-1,
    tag_quota=-1,
    import_methods=("glance-direct",),
)
SPECS = {**FIXED, "image": image_spec(SETTINGS)}


@pytest.fixture(params=sorted(SPECS), scope="module")
def spec(request: pytest.FixtureRequest) -> ApiSpec:
    return SPECS[request.param]


def test_document_is_valid_openapi_31(spec: ApiSpec) -> None:
    described = document(spec)
    assert described["openapi"] == "3.1.0"
    validate(described)


def test_every_route_is_described(spec: ApiSpec) -> None:
    paths = document(spec)["paths"]
    missing = [
        f"{method} {rule.rule}"
        for rule in spec.routes()
        for method in methods(rule)
        if method.lower() not in paths.get(template(rule).path, {})
    ]
    assert not missing, f"{spec.name}: routes without a description: {missing}"


def test_every_body_table_entry_names_a_route(spec: ApiSpec) -> None:
    """A body keyed by a rule no router has is a typo: it would describe nothing."""
    served = {(m, spec.rule_key(r.rule)) for r in spec.routes() for m in methods(r)}
    assert set(spec.bodies) <= served, set(spec.bodies) - served


def test_every_answer_names_a_route_and_the_main_shows_have_one(spec: ApiSpec) -> None:
    """Success bodies are described for the shows and lists of the main resources (the
    fuzzer checks every answer against them); one keyed by no route would describe nothing."""
    served = {(m, spec.rule_key(r.rule)) for r in spec.routes() for m in methods(r)}
    assert set(spec.responses) <= served, set(spec.responses) - served
    described = {key for key, answers in spec.responses.items() if "200" in answers}
    assert described >= MAIN_SHOWS.get(spec.name, set()), MAIN_SHOWS[spec.name] - described


MAIN_SHOWS = {
    "compute": {("GET", "/v2.1/servers/<server_id>"), ("GET", "/v2.1/flavors/<flavor_id>"),
                ("GET", "/v2.1/servers/detail")},
    "network": {("GET", "/v2.0/networks/<net_id>"), ("GET", "/v2.0/ports/<port_id>"),
                ("GET", "/v2.0/subnets/<subnet_id>")},
    "image": {("GET", "/v2/images/<image_id>"), ("GET", "/v2/images")},
    "identity": {("GET", "/v3/projects/<project_id>"), ("GET", "/v3/users/<user_id>")},
    "placement": {("GET", "/resource_providers/<uuid>")},
}  # fmt: skip


# Compute GETs that answer no JSON body, so no answer describes one: a tag's existence
# is a bodiless 204 (404 when the server lacks it).
BODILESS_GETS = {"/v2.1/servers/<server_id>/tags/<tag>"}


def test_every_compute_get_describes_its_json_answer() -> None:
    """The fuzzer checks a success only against a described body: a GET left out
    would answer anything unchecked."""
    spec = FIXED["compute"]
    gets = {spec.rule_key(r.rule) for r in spec.routes() if "GET" in methods(r)}
    described = {
        rule
        for (method, rule), answers in spec.responses.items()
        if method == "GET" and JSON in answers.get("200", {}).get("content", {})
    }
    assert gets - described == BODILESS_GETS, sorted(gets - described ^ BODILESS_GETS)


def test_the_compute_answer_tables_share_no_operation() -> None:
    """They are merged into one: an operation in two would lose one answer unseen."""
    tables = (compute_answers.ANSWERS, compute_server_answers.ANSWERS,
              compute_admin_answers.ANSWERS, compute_proxy_answers.ANSWERS)  # fmt: skip
    assert sum(len(table) for table in tables) == len(FIXED["compute"].responses)


def test_every_answer_is_a_valid_2020_12_schema(spec: ApiSpec) -> None:
    for key, answers in spec.responses.items():
        for status, response in answers.items():
            for media in response.get("content", {}).values():
                try:
                    Draft202012Validator.check_schema(media["schema"])
                except SchemaError as error:
                    pytest.fail(f"{key} {status}: {error.message}")


def test_links_name_real_operations(spec: ApiSpec) -> None:
    described = document(spec)
    ids = {op["operationId"] for item in described["paths"].values() for op in _ops(item)}
    for item in described["paths"].values():
        for op in _ops(item):
            for link in op["responses"].get("2XX", {}).get("links", {}).values():
                assert link["operationId"] in ids


def _ops(item: dict[str, Any]) -> list[dict[str, Any]]:
    return [value for key, value in item.items() if key != "parameters"]


def test_compute_documents_the_microversion_header() -> None:
    servers = document(FIXED["compute"])["paths"]["/v2.1/servers"]["post"]
    names = [param["name"] for param in servers["parameters"]]
    assert names == ["OpenStack-API-Version"]
    body = servers["requestBody"]["content"]["application/json"]["schema"]
    assert body["required"] == ["server"]


def test_the_servers_lists_document_every_filter_the_api_knows() -> None:
    """The fuzzer sends what is described: the filters, the sort and the paging all."""
    paths = document(FIXED["compute"])["paths"]
    for path in ("/v2.1/servers", "/v2.1/servers/detail"):
        params = paths[path]["get"]["parameters"]
        assert {p["name"] for p in params if p["in"] == "query"} == server_query.newest()


def test_draft4_exclusive_bounds_become_2020_numbers() -> None:
    from saphira.api.openapi.draft4 import convert

    schema = {"type": "integer", "minimum": 0, "exclusiveMinimum": True, "maximum": 9}
    assert convert(schema) == {"type": "integer", "exclusiveMinimum": 0, "maximum": 9}


def test_served_without_token_and_built_once() -> None:
    built: list[int] = []

    def build() -> dict[str, Any]:
        built.append(1)
        return document(FIXED["placement"])

    def behind(_environ: Any, start_response: Any) -> list[bytes]:
        start_response("401 Unauthorized", [("Content-Type", "text/plain")])
        return [b"token needed"]

    client = Client(OpenAPIFirst(behind, build))
    for _ in range(2):
        response = client.get(PATH)
        assert response.status_code == 200
        assert response.json is not None and response.json["info"]["title"]
    assert built == [1]
    assert client.get("/resource_providers").status_code == 401
    assert client.post(PATH).status_code == 401
