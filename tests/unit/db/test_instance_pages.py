"""A cell's listing page: three statements whatever its length, and the same
objects as ``instances.get`` (row, info cache, metadata and tags)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.cell import instance_pages, instances, models
from saphira.db.cell.instance_pages import Order, SortKey, _ordering
from saphira.db.cell.instances import InstanceFilters, _conditions
from saphira.objects import Instance, InstanceVIF
from tests.unit.db.instance_helpers import make

NEWEST = Order((SortKey("created_at", descending=True),))
T0 = dt.datetime(2026, 3, 1, 12, 0, 0)
VIF = InstanceVIF("3f0c9a51-aaaa-bbbb-cccc-000000000001", "fa:16:3e:00:00:01", "net-1",
                  "private", ["10.0.0.5", "fd00::5"], "ovs", "br-int", 1450, True, True,
                  "nic1")  # fmt: skip


def _fill(engine: sa.Engine, count: int) -> list[str]:
    """``count`` servers; every third has metadata, tags, a NIC and system metadata."""
    made = []
    with Session(engine) as session:
        for number in range(count):
            instance = dataclasses.replace(make(f"vm-{number}"), created_at=T0 + dt.timedelta(
                seconds=number), host="host1", key_name="key")  # fmt: skip
            if number % 3 == 0:
                instance.metadata = {"role": f"web-{number}", "tier": "front"}
                instance.tags = ["b-tag", "a-tag"]
                instance.system_metadata = {"image_os": "cirros", "locked_reason": "audit"}
            instances.create(session, instance)
            if number % 3 == 0:
                instances.write_info_cache(session, instance.uuid, [VIF])
            made.append(instance.uuid)
        session.commit()
    return made


class Statements:
    def __init__(self, engine: sa.Engine) -> None:
        self.seen: list[str] = []
        sa.event.listen(engine, "before_cursor_execute", self._seen)

    def _seen(self, *args: Any) -> None:
        self.seen.append(str(args[2]))


def _page(engine: sa.Engine, count: int) -> tuple[list[Instance], list[str]]:
    statements = Statements(engine)
    with Session(engine) as session:
        found = instance_pages.page(session, InstanceFilters(project_id="p1"), NEWEST, None, count)
    return found, statements.seen


@pytest.mark.parametrize("servers", [4, 40])
def test_a_page_costs_three_statements_whatever_its_length(engine: sa.Engine, servers: int) -> None:
    _fill(engine, servers)
    found, seen = _page(engine, servers)
    assert len(found) == servers
    assert len(seen) == 3, seen  # the page's uuids; rows with info caches; metadata and tags


def test_a_page_reads_the_same_objects_as_get_in_order(engine: sa.Engine) -> None:
    made = _fill(engine, 12)
    found, _ = _page(engine, 12)
    assert [i.uuid for i in found] == made[::-1]
    with Session(engine) as session:
        assert found == [instances.get(session, uuid) for uuid in made[::-1]]
    assert found[-1].metadata == {"role": "web-0", "tier": "front"}
    assert found[-1].tags == ["a-tag", "b-tag"]
    assert found[-1].network_info == [VIF]
    assert found[-2].metadata == {} and found[-2].tags == [] and found[-2].network_info == []


def test_a_deleted_metadata_item_is_not_read(engine: sa.Engine) -> None:
    (uuid,) = _fill(engine, 1)
    with Session(engine) as session:
        session.execute(sa.text("UPDATE instance_metadata SET deleted = id WHERE key = 'tier'"))
        session.commit()
    found, _ = _page(engine, 1)
    assert found[0].uuid == uuid and found[0].metadata == {"role": "web-0"}


def _varied(engine: sa.Engine) -> None:
    """Servers whose nullable sort keys are NULL for some, equal for others."""
    with Session(engine) as session:
        for number in range(24):
            instance = dataclasses.replace(
                make(f"vm-{number % 5}", project="p1" if number % 4 else "p2"),
                created_at=None if number % 7 == 0 else T0 + dt.timedelta(seconds=number % 6),
                host=None if number % 3 == 0 else f"host{number % 2}",
                key_name=None if number % 2 else "key",
                launched_at=None if number % 5 == 0 else T0 + dt.timedelta(minutes=number % 4),
            )
            instances.create(session, instance)
        session.commit()


ORDERS = [
    Order((SortKey("created_at", descending=True),)),
    Order((SortKey("created_at"),)),
    Order((SortKey("host"), SortKey("launched_at", descending=True))),
    Order((SortKey("key_name", descending=True), SortKey("display_name"))),
    Order((SortKey("launched_at"), SortKey("created_at", descending=True))),
]


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("project", ["p1", None])
def test_sqlite_sorts_nulls_as_the_is_not_null_terms_did(
    engine: sa.Engine, order: Order, project: str | None
) -> None:
    """On SQLite the page is ordered without the IS NOT NULL terms: the same uuids in the
    same order as with them, NULLs first ascending and last descending."""
    _varied(engine)
    t = models.Instance
    query = sa.select(t.uuid).where(*_conditions(InstanceFilters(project_id=project)))
    with Session(engine) as session:
        native = list(session.scalars(query.order_by(*_ordering(order, nulls_least=True))))
        spelled = list(session.scalars(query.order_by(*_ordering(order))))
        found = instance_pages.page(session, InstanceFilters(project_id=project), order, None, 50)
    assert native == spelled == [i.uuid for i in found]
    assert len(native) == (18 if project else 24)


def test_a_project_s_default_page_is_read_from_the_covering_index(engine: sa.Engine) -> None:
    """No table row is read and the project's rows are not sorted whole: the index is
    walked backwards (only equal creation times are sorted, by uuid)."""
    t = models.Instance
    query = (
        sa.select(t.uuid).where(*_conditions(InstanceFilters(project_id="p1")))
        .order_by(*_ordering(NEWEST, nulls_least=True)).limit(1000)
    )  # fmt: skip
    sql = str(query.compile(engine, compile_kwargs={"literal_binds": True}))
    with engine.connect() as connection:
        plan = [row[3] for row in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}")]
    assert any("COVERING INDEX instances_project_id_deleted_created_at_uuid_idx" in step
               for step in plan), plan  # fmt: skip
    assert "USE TEMP B-TREE FOR ORDER BY" not in plan, plan
