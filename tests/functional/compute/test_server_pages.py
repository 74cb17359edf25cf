"""GET /servers pages read in SQL per cell and merged: order, markers, Python filters
and the statements one page costs, against the app in process with two cells."""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from saphira.db import migration
from saphira.db.api import cells as api_cells
from saphira.db.api.models import InstanceMapping
from saphira.db.cell import instances
from saphira.db.engine import make_engine
from saphira.objects import Instance
from tests.functional.compute.servers_harness import Harness, make
from tests.unit.db.instance_helpers import make as make_instance

T0 = dt.datetime(2026, 3, 1, 12, 0, 0)
LATEST = {"OpenStack-API-Version": "compute 2.100"}


@dataclasses.dataclass
class TwoCells:
    harness: Harness
    cells: dict[str, tuple[str, int]]  # name -> (database URL, cell mapping id)
    home: dict[str, str] = dataclasses.field(default_factory=dict)  # server -> its cell

    def add(self, cell: str, instance: Instance) -> Instance:
        url, cell_id = self.cells[cell]
        engine = make_engine(url)
        with Session(engine) as session:
            instances.create(session, instance)
            session.commit()
        engine.dispose()
        with Session(self.harness.state.api_engine) as api:
            api.add(InstanceMapping(instance_uuid=instance.uuid, project_id=instance.project_id,
                                    cell_id=cell_id))  # fmt: skip
            api.commit()
        self.home[instance.uuid] = cell
        return instance

    def get(self, path: str) -> Any:
        response = self.harness.client().get(path, headers=LATEST)
        assert response.status_code == 200, response.json
        return response.json


@pytest.fixture
def two(tmp_path: Path) -> TwoCells:
    harness = make(tmp_path)
    url = f"sqlite:///{tmp_path / 'cell2.sqlite'}"
    engine = make_engine(url)
    migration.upgrade("cell", engine)
    engine.dispose()
    api_cells.create_cell(harness.conf, name="cell2", database_connection=url)
    found: dict[str, tuple[str, int]] = {}
    with Session(harness.state.api_engine) as api:
        for row in api.execute(sa.text("SELECT name, database_connection, id FROM cell_mappings")):
            found[row.name] = (row.database_connection, row.id)
    return TwoCells(harness, found)


def _server(name: str, created: dt.datetime, **fields: Any) -> Instance:
    instance = make_instance(name=name)
    instance.created_at = created
    for key, value in fields.items():
        setattr(instance, key, value)
    return instance


def _walk(two: TwoCells, query: str, limit: int) -> tuple[list[str], list[str]]:
    """Every page of ``query`` by its next links: (the servers in order, the markers)."""
    ids: list[str] = []
    markers: list[str] = []
    path = f"/v2.1/servers?{query}&limit={limit}" if query else f"/v2.1/servers?limit={limit}"
    for _ in range(100):
        body = two.get(path)
        ids += [server["id"] for server in body["servers"]]
        links = body.get("servers_links")
        if not links:
            return ids, markers
        assert len(body["servers"]) == limit
        href = urlsplit(links[0]["href"])
        markers.append(parse_qs(href.query)["marker"][0])
        path = f"{href.path}?{href.query}"
    raise AssertionError("more than 100 pages")


def _expected(servers: list[Instance], pairs: list[tuple[str, str]]) -> list[str]:
    """The order the API promises, computed the slow way: a stable sort per key from
    the last one, on the uuid first (NULLs first ascending, last descending)."""
    ordered = sorted(servers, key=lambda i: i.uuid)
    for key, direction in reversed(pairs):

        def value(i: Instance, k: str = key) -> tuple[bool, Any]:
            v = getattr(i, k)
            return (v is not None, v if v is not None else 0)

        ordered.sort(key=value, reverse=direction == "desc")
    return [i.uuid for i in ordered]


@pytest.fixture
def interleaved(two: TwoCells) -> list[Instance]:
    """18 servers spread over both cells with interleaved creation times, pairs of
    them created at the same instant in different cells, some never launched."""
    made = []
    for number in range(18):
        created = T0 + dt.timedelta(seconds=number // 2)  # two per instant
        launched = None if number % 3 == 0 else T0 + dt.timedelta(minutes=number % 4)
        server = _server(f"vm-{number % 5}", created, launched_at=launched)
        made.append(two.add("cell1" if number % 2 else "cell2", server))
    return made


@pytest.mark.parametrize("pairs", [
    [("created_at", "desc")],
    [("created_at", "asc")],
    [("display_name", "asc"), ("created_at", "desc")],
    [("launched_at", "asc")],
    [("launched_at", "desc"), ("display_name", "desc")],
])  # fmt: skip
def test_pages_across_two_cells_merge_in_order(
    two: TwoCells, interleaved: list[Instance], pairs: list[tuple[str, str]]
) -> None:
    query = "&".join(f"sort_key={key}&sort_dir={way}" for key, way in pairs)
    if pairs == [("created_at", "desc")]:
        query = ""  # Nova's default order
    ids, markers = _walk(two, query, limit=4)
    assert ids == _expected(interleaved, pairs)  # merged in order: no duplicate, no gap
    assert len(markers) == 4


def test_a_marker_in_either_cell_starts_the_next_page_after_it(
    two: TwoCells, interleaved: list[Instance]
) -> None:
    everything = _expected(interleaved, [("created_at", "desc")])
    assert {two.home[marker] for marker in everything} == {"cell1", "cell2"}
    for marker in everything:  # in both cells, ties included
        body = two.get(f"/v2.1/servers?marker={marker}&limit=3")
        following = everything[everything.index(marker) + 1 :][:3]
        assert [server["id"] for server in body["servers"]] == following


def test_an_unknown_marker_is_400(two: TwoCells, interleaved: list[Instance]) -> None:
    response = two.harness.client().get(f"/v2.1/servers?marker={uuid.uuid4()}", headers=LATEST)
    assert response.status_code == 400
    assert "not found" in response.json["badRequest"]["message"]


def test_a_name_filter_pages_through_more_than_one_batch(two: TwoCells) -> None:
    """One server in seven matches: a cell's first batch (limit + 1 rows) holds fewer
    than a page, so the page needs the batches after it."""
    made = [two.add("cell1", _server(f"{'match' if n % 7 == 0 else 'other'}-{n}",
                                     T0 + dt.timedelta(seconds=n)))
            for n in range(43)]  # fmt: skip
    wanted = _expected([i for i in made if i.display_name.startswith("match")],
                       [("created_at", "desc")])  # fmt: skip
    ids, _ = _walk(two, "name=^match", limit=2)
    assert ids == wanted and len(wanted) == 7


@contextmanager
def statements() -> Iterator[list[str]]:
    """Every SQL statement any engine of this process runs meanwhile."""
    seen: list[str] = []

    def record(*args: Any) -> None:
        seen.append(str(args[2]))

    event.listen(Engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(Engine, "before_cursor_execute", record)


def _detail_page_statements(two: TwoCells, servers: int) -> list[str]:
    for number in itertools.count(len(two.home)):
        if len(two.home) >= servers:
            break
        server = _server(f"vm-{number}", T0 + dt.timedelta(seconds=number))
        server.metadata, server.tags = {"k": "v"}, ["t1"]
        two.add("cell1" if number % 2 else "cell2", server)
    two.get("/v2.1/servers/detail?limit=3")  # first-use caches
    with statements() as seen:
        body = two.get("/v2.1/servers/detail?limit=3")
    assert [server["metadata"] for server in body["servers"]] == [{"k": "v"}] * 3
    return seen


def test_a_detail_page_costs_the_same_statements_for_5_or_50_servers(two: TwoCells) -> None:
    few = _detail_page_statements(two, 5)
    many = _detail_page_statements(two, 50)
    assert len(few) == len(many)
    sorted_reads = [s for s in many if "FROM instances" in s and "ORDER BY" in s]
    assert sorted_reads and all("LIMIT" in s for s in sorted_reads)  # a page per cell, not all
