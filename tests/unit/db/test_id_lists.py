"""A statement over a list of ids selects the same rows in both its forms: ids bound as
one JSON array (SQLite's json_each) and the expanding IN other databases use."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.computesvc import lookup
from saphira.db import id_lists, migration
from saphira.db.cell import instance_pages, instances
from saphira.db.engine import make_engine
from saphira.objects import InstanceVIF
from tests.unit.db.instance_helpers import make

VIF = InstanceVIF("3f0c9a51-aaaa-bbbb-cccc-000000000001", "fa:16:3e:00:00:01", "net-1",
                  "private", ["10.0.0.5"], "ovs", "br-int", 1450, True)  # fmt: skip
T0 = dt.datetime(2026, 3, 1, 12, 0, 0, 250000)


def _fill(engine: sa.Engine, count: int) -> list[str]:
    """Servers with and without metadata, tags, an info cache and odd names."""
    made = []
    with Session(engine) as session:
        for number in range(count):
            instance = dataclasses.replace(
                make(f"vm-{number} é \"'"), created_at=T0 + dt.timedelta(seconds=number)
            )
            if number % 2:
                instance.metadata = {"k": f"v-{number}", "ü": "x"}
                instance.tags = ["z", "a", f"t{number}"]
            instances.create(session, instance)
            if number % 3 == 0:
                instances.write_info_cache(session, instance.uuid, [VIF])
            made.append(instance.uuid)
        session.commit()
    return made


def _both(statement: id_lists.ByIds, connection: sa.Connection, ids: list[str]) -> list[Any]:
    listed: list[Any] = list(connection.execute(statement.listed, {id_lists.IDS: json.dumps(ids)}))
    expanding = connection.execute(statement.expanding, {id_lists.IDS: ids}).fetchall()
    assert sorted(listed, key=repr) == sorted(expanding, key=repr)
    return listed


def test_this_sqlite_has_json_each_so_the_listing_uses_it() -> None:
    assert id_lists.json_each()


@pytest.mark.parametrize("pick", ["all", "none", "some", "unknown", "repeated"])
def test_a_page_s_rows_and_children_are_the_same_in_both_forms(
    engine: sa.Engine, pick: str
) -> None:
    made = _fill(engine, 12)
    ids = {"all": made, "none": [], "some": made[1:9:2], "unknown": ["x", made[0], "' OR 1"],
           "repeated": [made[3], made[3], made[5]]}[pick]  # fmt: skip
    with engine.connect() as connection:
        rows = _both(instance_pages._ROWS, connection, ids)
        _both(instance_pages._CHILDREN, connection, ids)
    assert sorted(row.uuid for row in rows) == sorted(set(ids) & set(made))


def test_execute_reads_through_a_session_and_a_connection_alike(engine: sa.Engine) -> None:
    made = _fill(engine, 4)
    with Session(engine) as session:
        by_session = list(instance_pages._ROWS.execute(session, made[:2]))
        by_connection = list(instance_pages._ROWS.execute(session.connection(), made[:2]))
    assert sorted(by_session) == sorted(by_connection)
    assert {row.uuid for row in by_session} == set(made[:2])


def test_the_request_specs_and_groups_of_servers_are_the_same_in_both_forms(
    tmp_path: Path,
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/api.sqlite")
    migration.upgrade("api", engine)
    with engine.begin() as connection:
        for number in range(6):
            connection.execute(
                sa.text("INSERT INTO request_specs (instance_uuid, spec, vcpus, memory_mb) "
                        "VALUES (:uuid, :spec, 1, 512)"),
                {"uuid": f"u-{number}", "spec": json.dumps({"n": number})},
            )  # fmt: skip
    with engine.connect() as connection:
        rows = _both(lookup._SPECS, connection, ["u-1", "u-4", "u-9"])
        _both(lookup._GROUPS, connection, ["u-1", "u-4"])
    assert sorted(uuid for uuid, _ in rows) == ["u-1", "u-4"]
    engine.dispose()
