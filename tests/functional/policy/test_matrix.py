"""The policy matrix: every route of every API by seven callers, against a real cloud.

``matrix.py`` says what each caller must get from each route (reviewed like
code); this module checks that every route has a line there and that the
running cloud (``saphira up``, fake driver) answers accordingly. Callers go
from the least to the most privileged on each route, so a refused write is
tried before an allowed one could change its target; what the admin GETs at
a write's rule must be the same before and after a refused write.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
import requests

from tests.functional.cloud import Cloud, start_cloud
from tests.functional.policy import world as world_module
from tests.functional.policy.matrix import MATRIX
from tests.functional.policy.outcomes import OTHERS, Caller, Outcome
from tests.functional.policy.requests_spec import SPECS, Spec, World, fill
from tests.functional.policy.routes import API_ROUTES, PROJECT_TWIN, Route, routes

# One cloud and one world for the whole module: its tests share them, in order.
pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("policy_matrix")]
TIMEOUT = 60
ORDER = (
    Caller.ANONYMOUS,
    Caller.EXPIRED,
    Caller.OTHER_READER,
    Caller.OTHER_MEMBER,
    Caller.READER,
    Caller.MEMBER,
    Caller.ADMIN,
)
# Keystone and Placement check policy before they read the body; Nova, Neutron
# and Glance validate the body first (a schema error is a 400 for anyone).
POLICY_BEFORE_BODY = frozenset({"identity", "placement"})
# Compute runs before the APIs whose resources its servers use are deleted.
API_ORDER = ("placement", "compute", "network", "image", "identity")


def _where(api: str) -> str:
    return f"tests/functional/policy/matrix.py, {api.upper()}"


@pytest.mark.parametrize("api", sorted(API_ROUTES))
def test_every_route_has_an_entry(api: str) -> None:
    table = MATRIX[api]
    found = routes(api)
    missing = list(
        dict.fromkeys(
            f"{api} {method} {rule}: add ({method!r}, {rule!r}): <PROFILE> to {_where(api)}"
            for method, rule in (route.key for route in found)
            if (method, rule) not in table
        )
    )
    keys = {route.key for route in found}
    stale = [
        f"{api} {method} {rule}: in {_where(api)} but no such route"
        for method, rule in table
        if (method, rule) not in keys
    ]
    twins = {route.key for route in found if route.rule.startswith(PROJECT_TWIN)}
    plain = {
        route.key
        for route in found
        if route.rule.startswith("/v2.1/") and not route.rule.startswith(PROJECT_TWIN)
    }
    lonely = (
        [f"{api} {m} {r}: no /v2.1/<project_id> twin" for m, r in plain - twins]
        if api == "compute"
        else []
    )
    assert not (missing + stale + lonely), "\n".join(missing + stale + lonely)


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    running = start_cloud(str(tmp_path_factory.mktemp("cloud")))
    yield running
    if running.proc is not None and running.proc.poll() is None:
        assert running.stop() == 0, running.log()


@pytest.fixture(scope="module")
def world(cloud: Cloud) -> World:
    return world_module.build(cloud)


@dataclass(frozen=True)
class Entry:
    """One matrix line: its route and, for compute, the /v2.1/<project_id> twin."""

    forms: tuple[Route, ...]
    spec: Spec

    @property
    def first(self) -> Route:
        return self.forms[0]


def _sort_key(item: tuple[int, Entry]) -> tuple[int, int, int]:
    index, entry = item
    method, rule = entry.first.key
    if entry.spec.last:
        return (3, 0, index)
    if method == "DELETE":  # deepest first, then the table backwards
        return (2, -rule.count("/"), -index)
    return (0 if method == "GET" else 1, 0, index)


def _plan(api: str) -> list[Entry]:
    forms: dict[tuple[str, str], list[Route]] = {}
    for route in routes(api):
        forms.setdefault(route.key, []).append(route)
    entries = [Entry(tuple(group), SPECS[api].get(key, Spec())) for key, group in forms.items()]
    return [entry for _, entry in sorted(enumerate(entries), key=_sort_key)]


def _url(world: World, route: Route, spec: Spec, caller: Caller) -> str:
    values = dict(world.params[route.api])
    values.update({name: world.params[route.api][key] for name, key in spec.params.items()})
    values["project_id"] = (
        world.projects[caller]
        if route.rule.startswith(PROJECT_TWIN)
        else values.get("project_id", "")
    )
    query = spec.query.format(**world.params[route.api])
    return world.roots[route.api] + fill(route.rule, values) + query


def _send(
    http: requests.Session, world: World, route: Route, spec: Spec, caller: Caller
) -> requests.Response:
    headers = dict(spec.headers)
    token = world.tokens[caller]
    if token is not None:
        headers["X-Auth-Token"] = token
    if route.api == "compute":
        headers["OpenStack-API-Version"] = f"compute {spec.version or 'latest'}"
    if route.api == "placement":
        headers["OpenStack-API-Version"] = "placement latest"
    if spec.subject:
        headers["X-Subject-Token"] = world.subject_token()
    body: Any = spec.body(world) if spec.body else None
    kwargs: dict[str, Any] = {"data": body} if isinstance(body, bytes) else {"json": body}
    return http.request(
        route.method, _url(world, route, spec, caller), headers=headers, timeout=TIMEOUT, **kwargs
    )


def _leaks(world: World, response: requests.Response, where: str) -> list[str]:
    leaked = [label for label, ident in world.private.items() if ident in response.text]
    return [f"{where}: shows the home project's {', '.join(leaked)}"] if leaked else []


def _filter_leaks(
    http: requests.Session, world: World, route: Route, spec: Spec, caller: Caller, where: str
) -> list[str]:
    """A list asked for every project's, or the home project's, shows the caller's own
    at most (or is refused)."""
    if spec.query or "<" in route.rule:
        return []
    home = world.projects[Caller.MEMBER]
    query = f"?all_tenants=1&all_projects=true&project_id={home}&tenant_id={home}&owner={home}"
    response = _send(http, world, route, replace(spec, query=query), caller)
    if response.status_code >= 300:
        return []
    return _leaks(world, response, f"{where} {query}")


def _check(http: requests.Session, world: World, entry: Entry) -> list[str]:
    """Every caller, least privileged first, through each form of the route."""
    first, spec = entry.first, entry.spec
    profile = MATRIX[first.api][first.key]
    failures = []
    for caller in ORDER:
        expected = profile.expect(caller)
        refused = expected is not Outcome.OK
        for route in entry.forms:
            spec = _fixed_subject(world, entry.spec)
            before = _snapshot(http, world, route, spec) if refused else None
            response = _send(http, world, route, spec, caller)
            where = f"{route} as {caller.value} ({profile.name})"
            method = "POST" if spec.absent else route.method  # see Spec.absent
            if not expected.matches(response.status_code, method):
                got = f"{response.status_code} {response.text[:160]}"
                failures.append(f"{where}: expected {expected.value}, got {got}")
            elif route.method == "GET" and caller in OTHERS and response.status_code < 300:
                failures += _leaks(world, response, where)
                failures += _filter_leaks(http, world, route, spec, caller, where)
            if refused and route.api in POLICY_BEFORE_BODY:
                failures += _policy_first(http, world, route, spec, caller, where)
            if before is not None and _snapshot(http, world, route, spec) != before:
                failures.append(f"{where}: refused, but what the admin GETs there changed")
    return failures


def _policy_first(
    http: requests.Session, world: World, route: Route, spec: Spec, caller: Caller, where: str
) -> list[str]:
    """A refused caller is refused before the body is looked at: an empty body
    gets the same answer as a valid one."""
    if spec.body is None:
        return []
    empty = replace(spec, body=lambda _: {})
    expected = MATRIX[route.api][route.key].expect(caller)
    response = _send(http, world, route, empty, caller)
    if expected.matches(response.status_code, route.method):
        return []
    return [f"{where}, empty body: expected {expected.value}, got {response.status_code}"]


def _fixed_subject(world: World, spec: Spec) -> Spec:
    """One fresh subject token for a caller's request and the snapshots around it."""
    if not spec.subject:
        return spec
    headers = {**spec.headers, "X-Subject-Token": world.subject_token()}
    return replace(spec, headers=headers, subject=False)


def _snapshot(http: requests.Session, world: World, route: Route, spec: Spec) -> str | None:
    """What the admin GETs at a write's rule (None for a GET or a rule without one):
    a refused write must leave it as it was."""
    getter = Route(route.api, "GET", route.rule)
    if route.method == "GET" or getter.key not in MATRIX[route.api]:
        return None
    if MATRIX[route.api][getter.key].admin is not Outcome.OK:
        return None
    response = _send(http, world, getter, replace(spec, body=None), Caller.ADMIN)
    try:
        content = json.dumps(_stable(response.json()), sort_keys=True)
    except ValueError:
        content = response.text
    return f"{response.status_code} {content}"


VOLATILE = frozenset({"updated", "updated_at"})  # background work may touch them


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


@pytest.mark.parametrize("api", API_ORDER)
def test_policy_matrix(world: World, api: str) -> None:
    failures: list[str] = []
    with requests.Session() as http:
        for entry in _plan(api):
            failures += _check(http, world, entry)
    assert not failures, f"{len(failures)} mismatches:\n" + "\n".join(failures)
