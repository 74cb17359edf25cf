"""Schemathesis' state machine along the documents' links: create a resource, then
show, update and delete the one it made, as one caller."""

from __future__ import annotations

import time
from typing import Any

import hypothesis
import schemathesis
from hypothesis import HealthCheck, Phase
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import response_schema_conformance

from tests.functional.openapi.engine import TIMEOUT, Finding, first_line
from tests.functional.policy.outcomes import Caller
from tests.functional.policy.requests_spec import World

CHECKS = [not_a_server_error, response_schema_conformance]
SEQUENCES = 10  # per API and caller
STEPS = 6


def _machine(schema: schemathesis.BaseSchema, token: str) -> Any:
    base: Any = schema.as_state_machine()
    headers = {"X-Auth-Token": token}

    class Machine(base):  # type: ignore[misc]
        def get_call_kwargs(self, case: schemathesis.Case[Any]) -> dict[str, Any]:
            return {"headers": headers, "timeout": TIMEOUT}

        def validate_response(
            self, response: Any, case: schemathesis.Case[Any], *args: Any, **kwargs: Any
        ) -> None:
            case.validate_response(response, checks=CHECKS, headers=headers)

    return Machine


def run_all(
    world: World,
    schemas: dict[str, schemathesis.BaseSchema],
    callers: tuple[Caller, ...],
    deadline: float,
) -> list[Finding]:
    findings: list[Finding] = []
    settings = hypothesis.settings(
        max_examples=SEQUENCES,
        stateful_step_count=STEPS,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    for api, schema in schemas.items():
        for caller in callers:
            if time.monotonic() > deadline:
                return findings
            try:
                _machine(schema, str(world.tokens[caller])).run(settings=settings)
            except (AssertionError, FailureGroup) as error:  # the first failing sequence
                findings.append(Finding(caller.value, "stateful", api, first_line(error)))
    return findings
