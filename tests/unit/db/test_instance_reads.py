"""How many SELECTs the instances repository spends: a write reads the row alone,
a compare-and-swap its vm_state alone (the build reports run these per build)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.cell import instances
from saphira.db.engine import make_engine
from saphira.domain.states import VmState
from saphira.exception import InstanceNotFound
from tests.unit.db.instance_helpers import make, migrated


class Selects:
    """The SELECT statements an engine runs while counting."""

    def __init__(self, engine: sa.Engine) -> None:
        self.seen: list[str] = []
        sa.event.listen(engine, "before_cursor_execute", self._seen)

    def _seen(self, *args: Any) -> None:
        statement = str(args[2])
        if statement.lstrip().upper().startswith("SELECT"):
            self.seen.append(statement)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[sa.Engine]:
    engine = migrated(make_engine(f"sqlite:///{tmp_path}/cell.sqlite"))
    yield engine
    engine.dispose()


def test_an_update_reads_the_children_once(engine: sa.Engine) -> None:
    uuid = make().uuid
    with Session(engine) as session, session.begin():
        instances.create(session, replace(make(), uuid=uuid, metadata={"k": "v"}, tags=["t"]))
    selects = Selects(engine)
    with Session(engine) as session, session.begin():
        updated = instances.update(session, uuid, display_name="renamed", metadata={"k": "w"})
    # the row to write, alone; then the returned object: the row, its metadata, tags
    # and info cache (the children were read three more times before)
    assert len(selects.seen) == 5, selects.seen
    assert (updated.display_name, updated.metadata, updated.tags) == ("renamed", {"k": "w"}, ["t"])


def test_vm_state_of_reads_one_column(engine: sa.Engine) -> None:
    made = make()
    with Session(engine) as session, session.begin():
        instances.create(session, made)
    selects = Selects(engine)
    with Session(engine) as session, session.begin():
        assert instances.vm_state_of(session, made.uuid) is VmState.BUILDING
    assert len(selects.seen) == 1 and "instances.vm_state" in selects.seen[0]
    with Session(engine) as session, session.begin():
        instances.soft_delete(session, made.uuid)
        with pytest.raises(InstanceNotFound):
            instances.vm_state_of(session, made.uuid)


def test_get_reads_the_children_columns_not_their_rows(engine: sa.Engine) -> None:
    made = replace(make(), metadata={"k": "v"}, tags=["b", "a"])
    with Session(engine) as session, session.begin():
        instances.create(session, made)
        instances.update(session, made.uuid, network_info=[])
    selects = Selects(engine)
    with Session(engine) as session, session.begin():
        got = instances.get(session, made.uuid)
    assert (got.metadata, got.tags, got.network_info) == ({"k": "v"}, ["a", "b"], [])
    assert len(selects.seen) == 4, selects.seen
    loaded_whole = [s for s in selects.seen[1:] if ".id" in s or "deleted_at" in s.split("FROM")[0]]
    assert not loaded_whole, loaded_whole
