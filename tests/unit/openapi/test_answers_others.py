"""The success answers of the network, identity and placement APIs: every operation that
answers a JSON body has one described, and what the views really build fits it (the
fuzzer checks the running services; these catch a wrong description without one)."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace
from typing import Any, cast

import pytest
from jsonschema import Draft202012Validator
from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Request, Response

from saphira.api.identity import versions as identity_versions
from saphira.api.identity import views as identity_views
from saphira.api.network import extensions
from saphira.api.network import versions as network_versions
from saphira.api.network.views_ext import agent_view
from saphira.api.openapi import compute_answers, identity, model, network, placement
from saphira.api.openapi import placement_answers as answers
from saphira.api.openapi.model import JSON, ApiSpec
from saphira.api.openapi.paths import methods
from saphira.api.placement import providers as placement_root
from saphira.api.placement import views as placement_views
from saphira.db.identity.models import Domain, Endpoint, Project, Region, Role, Service, User
from saphira.db.network.models_ext import Agent
from saphira.db.placement.models import Inventory, ResourceProvider
from saphira.identity.auth import Ref, ScopedRef, TokenData
from saphira.identity.tokens import TokenPayload

SPECS = {spec.name: spec for spec in (network.SPEC, identity.SPEC, placement.SPEC)}
_GRANT = "/users/<user_id>/roles/<role_id>"
# Operations answering without a body (or with one only in some cases described elsewhere).
BODILESS = {
    "identity": {
        # 204: the grant exists (a check), or is made
        ("GET", f"/v3/<any(projects, domains):kind>/<target_id>{_GRANT}"),
        ("GET", f"/v3/<any(system):kind>{_GRANT}"),
        ("PUT", f"/v3/<any(projects, domains):kind>/<target_id>{_GRANT}"),
        ("PUT", f"/v3/<any(system):kind>{_GRANT}"),
        ("POST", "/v3/users/<user_id>/password"),  # 204
    },
    "placement": {
        ("GET", "/traits/<name>"),  # 204: the trait exists
        ("PUT", "/traits/<name>"),  # 201 or 204, no body
        ("POST", "/resource_classes"),  # 201, no body
        ("PUT", "/resource_classes/<name>"),  # 201 or 204, no body
        ("POST", "/allocations"),  # 204
        ("PUT", "/allocations/<consumer>"),  # 204
    },
}


@pytest.fixture(params=sorted(SPECS))
def spec(request: pytest.FixtureRequest) -> ApiSpec:
    return SPECS[request.param]


def _operations(spec: ApiSpec, wanted: set[str]) -> set[tuple[str, str]]:
    return {
        (method, spec.rule_key(rule.rule))
        for rule in spec.routes()
        for method in methods(rule)
        if method in wanted
    }


def _unanswered(spec: ApiSpec, wanted: set[str]) -> list[tuple[str, str]]:
    """Operations of these methods with no JSON answer described (and not known bodiless)."""
    with_body = {
        key
        for key, answered in spec.responses.items()
        if any("content" in response for response in answered.values())
    }
    known = with_body | BODILESS.get(spec.name, set())
    return sorted(_operations(spec, wanted) - known)


def test_every_get_answering_json_has_its_answer_described(spec: ApiSpec) -> None:
    assert not _unanswered(spec, {"GET"}), f"{spec.name}: {_unanswered(spec, {'GET'})}"


def test_every_write_answering_json_has_its_answer_described(spec: ApiSpec) -> None:
    """Creates and updates (deletes answer 204, without a body)."""
    writes = {"POST", "PUT", "PATCH"}
    assert not _unanswered(spec, writes), f"{spec.name}: {_unanswered(spec, writes)}"


def test_bodiless_operations_name_real_routes() -> None:
    for name, keys in BODILESS.items():
        assert keys <= _operations(SPECS[name], {"GET", "PUT", "POST"}), name


def test_links_are_one_shared_schema() -> None:
    assert compute_answers.FLAVOR["properties"]["links"] is model.LINKS
    assert answers.PROVIDER["properties"]["links"] == model.LINKS


def _fits(api: str, method: str, rule: str, body: Any, status: str = "200") -> None:
    schema = SPECS[api].responses[(method, rule)][status]["content"][JSON]["schema"]
    Draft202012Validator(schema).validate(body)


def _json(response: Response) -> Any:
    return response.get_json()


BASE = "http://192.0.2.1:5000"
_LINKS = {"self": f"{BASE}/v3/x", "previous": None, "next": None}
_NOW = dt.datetime(2026, 1, 1, 12, 0, 0)


def _identity_rows() -> dict[str, Any]:
    return {
        "domain": identity_views.domain(
            BASE, Domain(id="d1", name="Default", description=None, enabled=True, extra=None)
        ),
        "project": identity_views.project(BASE, Project(
            id="p1", name="demo", domain_id="d1", parent_id=None, description=None,
            enabled=True, extra='{"tags": ["a"]}')),
        "user": identity_views.user(BASE, User(
            id="u1", name="alice", domain_id="d1", default_project_id=None, enabled=True,
            extra=None)),
        "role": identity_views.role(BASE, Role(id="r1", name="member", description=None)),
        "service": identity_views.service(BASE, Service(
            id="s1", type="compute", name=None, description=None, enabled=True)),
        "endpoint": identity_views.endpoint(BASE, Endpoint(
            id="e1", service_id="s1", interface="public", region_id=None, url=BASE,
            enabled=True)),
        "region": identity_views.region(
            BASE, Region(id="RegionOne", description=None, parent_region_id=None)
        ),
    }  # fmt: skip


@pytest.mark.parametrize("singular", sorted(_identity_rows()))
def test_identity_resources_fit(singular: str) -> None:
    view = _identity_rows()[singular]
    plural = f"/v3/{singular}s"
    param = {"domain": "domain_id", "project": "project_id", "user": "user_id",
             "role": "role_id"}.get(singular, "ident")  # fmt: skip
    _fits("identity", "GET", plural, {f"{singular}s": [view], "links": _LINKS})
    _fits("identity", "GET", f"{plural}/<{param}>", {singular: view})
    _fits("identity", "POST", plural, {singular: view}, "201")
    _fits("identity", "PATCH", f"{plural}/<{param}>", {singular: view})


def _token(scope: dict[str, Any], roles: tuple[Ref, ...]) -> TokenData:
    payload = TokenPayload("u1", ("password",), _NOW, _NOW, ("audit",), **scope)
    user = ScopedRef("u1", "alice", Ref("d1", "Default"))
    project = ScopedRef("p1", "demo", Ref("d1", "Default")) if "project_id" in scope else None
    domain = Ref("d1", "Default") if "domain_id" in scope else None
    return TokenData("tok", payload, user, project, domain, roles)


@pytest.mark.parametrize(
    "scope", [{}, {"project_id": "p1"}, {"domain_id": "d1"}, {"system": "all"}]
)
def test_identity_tokens_fit(scope: dict[str, Any]) -> None:
    endpoint = {"id": "e1", "interface": "public", "region": None, "region_id": None,
                "url": BASE}  # fmt: skip
    catalog = [{"endpoints": [endpoint], "id": "s1", "type": "compute", "name": ""}]
    roles = (Ref("r1", "member"),) if scope else ()
    body = identity_views.token(_token(scope, roles), catalog)
    _fits("identity", "POST", "/v3/auth/tokens", body, "201")
    _fits("identity", "GET", "/v3/auth/tokens", body)
    _fits("identity", "GET", "/v3/auth/catalog", {"catalog": catalog, "links": _LINKS})


def test_identity_versions_fit() -> None:
    call = cast(Any, SimpleNamespace(base=BASE))
    _fits("identity", "GET", "/", _json(identity_versions.versions(call)), "300")
    _fits("identity", "GET", "/v3", _json(identity_versions.version(call)))


def test_network_agents_extensions_and_root_fit() -> None:
    agent = agent_view(Agent(
        id="a1", agent_type="Open vSwitch agent", binary="neutron-openvswitch-agent",
        topic="N/A", host="h1", availability_zone=None, admin_state_up=True, description=None,
        configurations={}, created_at=_NOW, started_at=_NOW, heartbeat_timestamp=_NOW),
        75, _NOW)  # fmt: skip
    _fits("network", "GET", "/v2.0/agents/<agent_id>", {"agent": agent})
    call = cast(Any, SimpleNamespace(request=Request(EnvironBuilder(base_url=BASE).get_environ())))
    _fits("network", "GET", "/v2.0/extensions", _json(extensions._list(call)))
    _fits("network", "GET", "/v2.0/extensions/<path:alias>", _json(extensions._show(call, "agent")))
    _fits("network", "GET", "/v2.0", _json(network_versions._resources(call)))


def _placement_call(minor: int) -> Any:
    request = SimpleNamespace(script_root="")
    return SimpleNamespace(request=request, at_least=lambda wanted: minor >= wanted)


@pytest.mark.parametrize("minor", [0, 14, 36])
def test_placement_providers_and_inventories_fit(minor: int) -> None:
    rp = ResourceProvider(id=1, uuid="0f2c", name="cn1", generation=3, root_provider_id=1,
                          parent_provider_id=None)  # fmt: skip
    shown = placement_views.provider(_placement_call(minor), rp, {1: "0f2c"})
    _fits("placement", "GET", "/resource_providers/<uuid>", shown)
    _fits("placement", "GET", "/resource_providers", {"resource_providers": [shown]})
    inv = Inventory(total=8, reserved=0, min_unit=1, max_unit=8, step_size=1,
                    allocation_ratio=16.0)  # fmt: skip
    rule = "/resource_providers/<uuid>/inventories"
    _fits("placement", "GET", rule, placement_views.inventories(rp, {"VCPU": inv}))
    _fits("placement", "GET", f"{rule}/<rc>", placement_views.inventory(rp, inv))
    _fits("placement", "GET", "/", _json(placement_root.root(_placement_call(minor))))
