"""Every operation of every API fuzzed from its own /openapi.json against a real
`saphira up` (fake driver), as admin, member, reader and another project's member.

The always-run test gives each operation one negative and one positive example
with one role in turn (the examples are derandomized: the same every run); the
``long`` one every operation with every role, more examples (random ones), the
compute project twins, positive examples again at the oldest microversions
(compute 2.1, placement 1.0) and stateful create -> show -> update -> delete
sequences along the documents' links, a quarter of its share of the long tier's
budget each (tests/budget.py).
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterator

import pytest
import requests
import schemathesis
from schemathesis import GenerationMode

from saphira.service import registry
from tests.budget import Budget
from tests.functional.cloud import Cloud, start_cloud
from tests.functional.openapi import stateful
from tests.functional.openapi.engine import OLDEST, Finding, Run, fuzz, load
from tests.functional.openapi.plan import APIS, ROLES, plan
from tests.functional.openapi.snapshot import changed, snapshot, warm_up
from tests.functional.policy import world as world_module
from tests.functional.policy.outcomes import Caller
from tests.functional.policy.requests_spec import World

# The fuzzer's bad logins come from 127.0.0.1, as the services' own token requests do:
# the per-address login throttle (tested on its own) would refuse the services too.
UNTHROTTLED = "[identity]\nlogin_failures_per_source = 0\n"


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    where = tmp_path_factory.mktemp("cloud")
    conf = where / "fuzz.conf"
    conf.write_text(UNTHROTTLED)
    running = start_cloud(str(where), ["--config-file", str(conf)])
    yield running
    if running.proc is not None and running.proc.poll() is None:
        assert running.stop() == 0, running.log()


@pytest.fixture(scope="module")
def world(cloud: Cloud) -> World:
    return world_module.build(cloud)


@pytest.fixture(scope="module")
def schemas(world: World) -> dict[str, schemathesis.BaseSchema]:
    warm_up(world, ROLES)
    return {api: load(world, api) for api in APIS}


def test_every_api_serves_its_document_without_a_token(cloud: Cloud) -> None:
    for api in (*APIS, "metadata"):
        spec = registry.by_type(api)
        root = f"http://127.0.0.1:{spec.default_port + cloud.port_offset}"
        response = requests.get(f"{root}/openapi.json", timeout=30)
        assert response.status_code == 200, f"{api}: {response.status_code} {response.text}"
        assert response.json()["openapi"] == "3.1.0"
        assert response.json()["info"]["title"].startswith("Saphira "), api


def _batch(
    world: World,
    schemas: dict[str, schemathesis.BaseSchema],
    mode: GenerationMode,
    run: Run,
    *,
    every_role: bool,
    deadline: float = float("inf"),
    apis: Collection[str] = APIS,
) -> list[Finding]:
    findings: list[Finding] = []
    for route, caller in plan(every_role=every_role, twins=every_role):
        if time.monotonic() > deadline:
            break
        if route.api not in apis:
            continue
        findings += fuzz(schemas[route.api], world, route, caller, mode, run)
    return findings


def _report(findings: list[Finding]) -> str:
    return f"{len(findings)} findings:\n" + "\n".join(str(f) for f in findings)


def test_every_operation_rejects_garbage_and_never_fails(
    world: World, schemas: dict[str, schemathesis.BaseSchema]
) -> None:
    before = snapshot(world)
    rejected = _batch(world, schemas, GenerationMode.NEGATIVE, Run(1), every_role=False)
    written = changed(before, snapshot(world))
    accepted = _batch(world, schemas, GenerationMode.POSITIVE, Run(1), every_role=False)
    assert not rejected + accepted, _report(rejected + accepted)
    assert not written, f"rejected calls changed {written}"


@pytest.mark.long
def test_every_operation_as_every_role_and_stateful_links(
    world: World, schemas: dict[str, schemathesis.BaseSchema], long_budget: Budget
) -> None:
    quarter = long_budget.seconds / 4  # negative, positive, oldest, sequences: each reached
    ends = [long_budget.started + quarter * part for part in (1, 2, 3, 4)]
    run = Run(5, derandomize=False)
    before = snapshot(world)
    rejected = _batch(
        world, schemas, GenerationMode.NEGATIVE, run, every_role=True, deadline=ends[0]
    )
    written = changed(before, snapshot(world))
    accepted = _batch(
        world, schemas, GenerationMode.POSITIVE, run, every_role=True, deadline=ends[1]
    )
    old = Run(5, derandomize=False, versions=OLDEST)
    accepted += _batch(world, schemas, GenerationMode.POSITIVE, old, every_role=True,
                       deadline=ends[2], apis=tuple(OLDEST))  # fmt: skip
    sequences = stateful.run_all(world, schemas, (Caller.ADMIN, Caller.MEMBER), ends[3])
    assert not rejected + accepted + sequences, _report(rejected + accepted + sequences)
    assert not written, f"rejected calls changed {written}"
