"""A cell's listing pages on real PostgreSQL and MariaDB: the SQL order and the
start after a position agree with the order the API merges by (``Order.key``),
NULLs included, whatever the database's own habit with NULLs."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.cell import instance_pages, instances
from saphira.db.cell.instance_pages import Order, SortKey
from saphira.db.cell.instances import InstanceFilters
from saphira.db.engine import make_engine
from tests.integration.db.conftest import CreateDatabase
from tests.unit.db.instance_helpers import make, migrated

pytestmark = pytest.mark.integration

T0 = dt.datetime(2026, 3, 1, 12, 0, 0)


@pytest.fixture
def engine(create_database: CreateDatabase, prefix: str) -> Iterator[sa.Engine]:
    engine = migrated(make_engine(create_database(prefix)))
    yield engine
    engine.dispose()


@pytest.mark.parametrize("keys", [
    (SortKey("created_at", descending=True),),
    (SortKey("launched_at"), SortKey("display_name", descending=True)),
    (SortKey("launched_at", descending=True), SortKey("created_at")),
])  # fmt: skip
def test_pages_walk_the_merge_order(engine: sa.Engine, keys: tuple[SortKey, ...]) -> None:
    with Session(engine) as session, session.begin():
        for number in range(13):
            server = make(f"vm-{number % 4}")
            server.created_at = T0 + dt.timedelta(seconds=number // 2)
            server.launched_at = None if number % 3 == 0 else T0 + dt.timedelta(minutes=number % 2)
            instances.create(session, server)
    order = Order(keys)
    with Session(engine) as session:
        everything = instance_pages.page(session, InstanceFilters(), order, None, 100)
        assert [i.uuid for i in everything] == [i.uuid for i in sorted(everything, key=order.key)]
        walked: list[str] = []
        start = None
        while True:
            page = instance_pages.page(session, InstanceFilters(), order, start, 3)
            walked += [i.uuid for i in page]
            if len(page) < 3:
                break
            start = instance_pages.position_of(session, page[-1].uuid, order, None)
    assert walked == [i.uuid for i in everything]
