"""Schemathesis against a running cloud, one route at a time, as one caller.

Each route of the policy matrix's table is fuzzed through its operation in the
API's own ``/openapi.json``, with the matrix's real path parameters (a server
that exists, a victim user for a DELETE) so the requests reach the handlers'
logic instead of stopping at a 404. Checks: no 5xx, negative data gets a
4xx, and every response fits its documented schema (the API's error body).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import hypothesis
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    negative_data_rejection,
    response_schema_conformance,
)
from werkzeug.routing import Rule

from saphira.api.openapi.paths import template
from tests.functional.policy.outcomes import Caller
from tests.functional.policy.requests_spec import SPECS, World
from tests.functional.policy.routes import PROJECT_TWIN, Route

TIMEOUT = 60
CHECKS = [not_a_server_error, negative_data_rejection, response_schema_conformance]
# The documents describe the newest microversion: every call asks for it, except the
# positive ones sent at the oldest (what an old client sends meets the older paths).
NEWEST = {
    "compute": {"OpenStack-API-Version": "compute latest"},
    "placement": {"OpenStack-API-Version": "placement latest"},
}
OLDEST = {
    "compute": {"OpenStack-API-Version": "compute 2.1"},
    "placement": {"OpenStack-API-Version": "placement 1.0"},
}
PATCH_TYPES = ("application/openstack-images-v2.1-json-patch",)
schemathesis.serializer.alias(list(PATCH_TYPES), "application/json")


@dataclasses.dataclass(frozen=True)
class Finding:
    caller: str
    mode: str
    operation: str
    problem: str

    def __str__(self) -> str:
        return f"[{self.caller} {self.mode}] {self.operation}: {self.problem}"


def load(world: World, api: str) -> schemathesis.BaseSchema:
    """The API's document as it serves it, pointed at its root."""
    response = requests.get(f"{world.roots[api]}/openapi.json", timeout=TIMEOUT)
    assert response.status_code == 200, response.text
    schema = schemathesis.openapi.from_dict(response.json())
    schema.config.update(base_url=world.roots[api])
    schema.config.checks.negative_data_rejection.expected_statuses = ["4XX"]
    # Unknown query parameters are ignored, as Nova (before 2.75) and Neutron ignore them:
    # an extra one is no negative case.
    schema.config.generation.update(allow_extra_parameters=False)
    return schema


def path_values(world: World, route: Route, caller: Caller) -> dict[str, str]:
    """The matrix's path parameters for this route (victims for what it deletes)."""
    spec = SPECS[route.api].get(route.key)
    own = world.params[route.api]
    values = dict(own)
    if spec is not None:
        values.update({name: own[key] for name, key in spec.params.items()})
    if route.rule.startswith(PROJECT_TWIN):
        values["project_id"] = world.projects[caller]
    found = template(Rule(route.rule))
    return {param.name: values[param.name] for param in found.params}


@dataclasses.dataclass(frozen=True)
class Run:
    """How much: examples per route, caller and mode; seeded or random; at which
    microversions (by API)."""

    examples: int
    derandomize: bool = True
    versions: Mapping[str, Mapping[str, str]] = dataclasses.field(default_factory=lambda: NEWEST)


def fuzz(
    schema: schemathesis.BaseSchema,
    world: World,
    route: Route,
    caller: Caller,
    mode: GenerationMode,
    run: Run,
) -> list[Finding]:
    found = template(Rule(route.rule))
    operation = schema[found.path][route.method]
    token = world.tokens[caller]
    headers = {**run.versions.get(route.api, {}), **({"X-Auth-Token": token} if token else {})}
    findings: list[Finding] = []
    strategy = operation.as_strategy(
        generation_mode=mode, path_parameters=path_values(world, route, caller)
    )
    label = f"{route.method} {route.rule}"

    def one(case: schemathesis.Case[Any]) -> None:
        response = case.call(headers=headers, timeout=TIMEOUT)
        try:
            case.validate_response(response, checks=CHECKS, headers=headers)
        except (AssertionError, FailureGroup) as error:  # every check that failed
            problem = f"{response.status_code} {first_line(error)} ({_sent(case, token)})"
            findings.append(Finding(caller.value, mode.value, label, problem))

    test = _settings(run)(given(strategy)(one))
    with contextlib.suppress(Unsatisfiable):  # nothing to negate: only fixed path parameters
        test()
    return findings


def _settings(run: Run) -> Callable[[Any], Any]:
    return hypothesis.settings(
        max_examples=run.examples,
        database=None,  # no example database in the tree
        deadline=None,
        derandomize=run.derandomize,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )


def first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return " | ".join(line.strip() for line in text.splitlines()[:8] if line.strip())


def _sent(case: schemathesis.Case[Any], token: str | None) -> str:
    """What the case sent besides the token: enough to reproduce it by hand."""
    headers = {k: v for k, v in (case.headers or {}).items() if v != token}
    body = getattr(case, "body", None)
    shown = "" if type(body).__name__ == "NotSet" else f" body {body!r:.300}"
    return f"{case.formatted_path} query {case.query!r:.200} headers {headers!r:.200}{shown}"
