"""The instances repository on real PostgreSQL and MariaDB: schema, regex
filters, and threads racing one compare-and-swap."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import replace

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy.orm import Session

from saphira.db.cell import actions, instances
from saphira.db.cell.instances import InstanceFilters
from saphira.db.cell.models import Base
from saphira.db.engine import make_engine
from saphira.domain import transitions as tr
from saphira.domain.states import TaskState, VmState
from saphira.domain.table import Action
from saphira.objects import InstanceVIF
from tests.integration.db.conftest import CreateDatabase
from tests.unit.db.instance_helpers import active, make, migrated, race

pytestmark = pytest.mark.integration


@pytest.fixture
def engine(create_database: CreateDatabase, prefix: str) -> Iterator[sa.Engine]:
    engine = migrated(make_engine(create_database(prefix)))
    yield engine
    engine.dispose()


def test_schema_matches_models(engine: sa.Engine) -> None:
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []


def test_round_trip_and_regex_filter(engine: sa.Engine) -> None:
    with Session(engine) as session, session.begin():
        made = replace(make("web-1"), metadata={"k": "v"}, tags=["t"], user_data="x" * 70000)
        instances.create(session, made)
        instances.create(session, make("db-1"))
    with Session(engine) as session:
        stored = instances.get(session, made.uuid)
        assert (stored.metadata, stored.tags, stored.user_data) == (
            {"k": "v"}, ["t"], made.user_data,
        )  # fmt: skip
        found = instances.list_instances(session, InstanceFilters(name="^we.-[0-9]$"))
        assert [i.uuid for i in found] == [made.uuid]


def test_a_long_info_cache_comes_back_whole_beside_metadata_and_tags(engine: sa.Engine) -> None:
    """The children's one UNION ALL keeps the info cache's long text (no VARCHAR cut)."""
    vifs = [InstanceVIF(f"port-{n}", "fa:16:3e:00:00:01", "net", "x" * 200) for n in range(8)]
    made = replace(make("web-2"), metadata={"b": "2", "a": "1"}, tags=["z", "y"])
    with Session(engine) as session, session.begin():
        instances.create(session, made)
        instances.update(session, made.uuid, network_info=vifs)
    with Session(engine) as session:
        stored = instances.get(session, made.uuid)
    assert (stored.metadata, stored.tags) == ({"b": "2", "a": "1"}, ["y", "z"])
    assert stored.network_info == vifs


@pytest.mark.parametrize("runners", [2, 8])
def test_racing_threads_exactly_one_wins(engine: sa.Engine, runners: int) -> None:
    with Session(engine) as session, session.begin():
        inst = active(session, make())
    outcomes = race(engine, inst.uuid, Action.STOP, runners)
    assert outcomes.count("won") == 1
    assert outcomes.count("lost: task_state=powering-off") == runners - 1


def test_a_build_walks_and_finishes_with_its_events_on_a_server(engine: sa.Engine) -> None:
    """The statements built once (the compare-and-swap per shape, a NULL task_state among
    the expected ones or not; the action and open-event look-ups) on each server."""
    made, launched = make("web-3"), dt.datetime(2026, 1, 2, 3, 4, 5)
    with Session(engine) as session, session.begin():
        instances.insert(session, made)
        actions.first_action(session, made.uuid, "req-1", "create", "conductor_schedule",
                             "Success", project_id="p1", user_id="u1")  # fmt: skip
        for step in (TaskState.SCHEDULING, TaskState.BLOCK_DEVICE_MAPPING, TaskState.NETWORKING):
            instances.apply(session, made.uuid, tr.advance(Action.BUILD, VmState.BUILDING, step))
        assert actions.event_start(session, made.uuid, "req-1", "compute_build", "h1")
    with Session(engine) as session, session.begin():
        instances.write_info_cache(session, made.uuid, [])
        move = tr.finish(Action.BUILD, VmState.BUILDING)
        instances.apply(session, made.uuid, move, method="build", launched_at=launched)
        assert actions.event_finish(session, made.uuid, "req-1", "compute_build", "Success")
        instances.save_state(session, made.uuid, VmState.ACTIVE, None, host="h2")
    with Session(engine) as session:
        got = instances.get(session, made.uuid)
        assert instances.vm_state_of(session, made.uuid) == VmState.ACTIVE
        assert instances.finish_state_of(session, made.uuid) == (VmState.ACTIVE, None)
    assert (got.vm_state, got.task_state, got.launched_at, got.host) == (
        VmState.ACTIVE, None, launched, "h2")  # fmt: skip
