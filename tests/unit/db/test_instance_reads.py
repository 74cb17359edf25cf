"""How many SELECTs the instances repository spends: a write reads the row alone,
a compare-and-swap its vm_state alone (the build reports run these per build)."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.cell import instances
from saphira.domain import transitions as tr
from saphira.domain.states import TaskState, VmState
from saphira.domain.table import Action
from saphira.exception import InstanceInvalidState, InstanceNotFound
from tests.unit.db.instance_helpers import make


class Selects:
    """The SELECT statements an engine runs while counting."""

    def __init__(self, engine: sa.Engine) -> None:
        self.seen: list[str] = []
        sa.event.listen(engine, "before_cursor_execute", self._seen)

    def _seen(self, *args: Any) -> None:
        statement = str(args[2])
        if statement.lstrip().upper().startswith("SELECT"):
            self.seen.append(statement)


def test_an_update_reads_the_children_once(engine: sa.Engine) -> None:
    uuid = make().uuid
    with Session(engine) as session, session.begin():
        instances.create(session, replace(make(), uuid=uuid, metadata={"k": "v"}, tags=["t"]))
    selects = Selects(engine)
    with Session(engine) as session, session.begin():
        updated = instances.update(session, uuid, display_name="renamed", metadata={"k": "w"})
    # the row to write, alone; then the returned object: the row, then its metadata, tags
    # and info cache in one statement (the children were read three more times before)
    assert len(selects.seen) == 3, selects.seen
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


def test_get_reads_the_children_columns_not_their_rows_in_one_statement(engine: sa.Engine) -> None:
    made = replace(make(), metadata={"k": "v"}, tags=["b", "a"])
    with Session(engine) as session, session.begin():
        instances.create(session, made)
        instances.update(session, made.uuid, network_info=[])
    selects = Selects(engine)
    with Session(engine) as session, session.begin():
        got = instances.get(session, made.uuid)
    assert (got.metadata, got.tags, got.network_info) == ({"k": "v"}, ["a", "b"], [])
    assert len(selects.seen) == 2, selects.seen  # the row; its children in one UNION ALL
    loaded_whole = [s for s in selects.seen[1:] if "deleted_at" in s or "created_at" in s]
    assert not loaded_whole, loaded_whole


class Statements(Selects):
    """Every statement, not only the SELECTs."""

    def _seen(self, *args: Any) -> None:
        self.seen.append(str(args[2]))


def _building(engine: sa.Engine, system_metadata: dict[str, str] | None = None) -> str:
    made = replace(make(), system_metadata=system_metadata or {})
    with Session(engine) as session, session.begin():
        instances.create(session, made)
        for step in (TaskState.SCHEDULING, TaskState.BLOCK_DEVICE_MAPPING, TaskState.NETWORKING):
            instances.apply(session, made.uuid, tr.advance(Action.BUILD, VmState.BUILDING, step))
    return made.uuid


def test_finish_state_of_reads_two_columns(engine: sa.Engine) -> None:
    """instance_finish's read: the vm_state and the way back, not the instance."""
    uuid = _building(engine, {"old_vm_state": "stopped"})
    selects = Selects(engine)
    with Session(engine) as session, session.begin():
        assert instances.finish_state_of(session, uuid) == (VmState.BUILDING, "stopped")
    assert len(selects.seen) == 1, selects.seen
    assert "instances.vm_state, instances.system_metadata \nFROM" in selects.seen[0]
    with Session(engine) as session, session.begin():
        instances.soft_delete(session, uuid)
        with pytest.raises(InstanceNotFound):
            instances.finish_state_of(session, uuid)


def test_a_finish_writes_its_columns_in_the_compare_and_swap(engine: sa.Engine) -> None:
    uuid, launched = _building(engine), dt.datetime(2026, 1, 2, 3, 4, 5)
    statements = Statements(engine)
    with Session(engine) as session, session.begin():
        move = tr.finish(Action.BUILD, VmState.BUILDING)
        instances.apply(session, uuid, move, method="build", launched_at=launched)
    assert len(statements.seen) == 1 and statements.seen[0].startswith("UPDATE instances SET")
    with Session(engine) as session:
        got = instances.get(session, uuid)
    assert (got.vm_state, got.launched_at) == (VmState.ACTIVE, launched)


def test_a_lost_compare_and_swap_writes_none_of_its_columns(engine: sa.Engine) -> None:
    uuid = _building(engine)
    with Session(engine) as session, session.begin():
        instances.apply(session, uuid, tr.fail(Action.BUILD, VmState.BUILDING))
    with Session(engine) as session, session.begin(), pytest.raises(InstanceInvalidState):
        move = tr.finish(Action.BUILD, VmState.BUILDING)
        instances.apply(session, uuid, move, launched_at=dt.datetime(2026, 1, 1))
    with Session(engine) as session:
        assert instances.get(session, uuid).launched_at is None
    with Session(engine) as session, pytest.raises(ValueError, match="state columns"):
        instances.apply(session, uuid, move, vm_state="active")


def test_split_columns_keeps_children_and_state_out_of_the_update() -> None:
    columns, rest = instances.split_columns(
        {"host": "h", "launched_at": None, "metadata": {}, "network_info": [], "vm_state": "x"}
    )
    assert columns == {"host": "h", "launched_at": None}
    assert rest == {"metadata": {}, "network_info": [], "vm_state": "x"}


def test_an_insert_deletes_no_children(engine: sa.Engine) -> None:
    """A new row has no metadata or tags to clear: the conductor's insert only adds."""
    made = replace(make(), metadata={"k": "v"}, tags=["t"])
    statements = Statements(engine)
    with Session(engine) as session, session.begin():
        instances.insert(session, made)
    assert not [s for s in statements.seen if s.startswith("DELETE")], statements.seen
    with Session(engine) as session:
        got = instances.get(session, made.uuid)
    assert (got.metadata, got.tags) == ({"k": "v"}, ["t"])


class StatementObjects:
    """The statement objects a session executes while counting."""

    def __init__(self, session: Session) -> None:
        self.seen: list[object] = []
        sa.event.listen(session, "do_orm_execute", self._seen)

    def _seen(self, state: sa.orm.ORMExecuteState) -> None:
        self.seen.append(state.statement)


def test_reads_of_one_instance_reuse_their_statements(engine: sa.Engine) -> None:
    """Built once, a statement's cache key is computed once: two reads of two instances
    execute the very same statement objects."""
    first, second = make().uuid, make().uuid
    with Session(engine) as session, session.begin():
        for uuid in (first, second):
            instances.create(session, replace(make(), uuid=uuid))
    with Session(engine) as session:
        statements = StatementObjects(session)
        for uuid in (first, second):
            instances.get(session, uuid)
            instances.vm_state_of(session, uuid)
            instances.finish_state_of(session, uuid)
        half = len(statements.seen) // 2
        assert half == 4
        for one, other in zip(statements.seen[:half], statements.seen[half:], strict=True):
            assert one is other


def test_compare_and_swaps_of_one_shape_reuse_their_statement(engine: sa.Engine) -> None:
    """The same columns and expected states' shape: the very same UPDATE object, built once;
    other columns: another one. Each still swaps its own instance."""
    first, second = _building(engine), _building(engine)
    move = tr.finish(Action.BUILD, VmState.BUILDING)
    with Session(engine) as session, session.begin():
        statements = StatementObjects(session)
        for uuid, launched in ((first, dt.datetime(2026, 1, 2)), (second, dt.datetime(2026, 1, 3))):
            instances.apply(session, uuid, move, method="build", launched_at=launched)
        instances.save_state(session, first, VmState.ACTIVE, None, host="h2")
    assert statements.seen[0] is statements.seen[1] and statements.seen[2] is not statements.seen[0]
    with Session(engine) as session:
        got = [instances.get(session, uuid) for uuid in (first, second)]
    assert [(i.vm_state, i.launched_at, i.host) for i in got] == [
        (VmState.ACTIVE, dt.datetime(2026, 1, 2), "h2"),
        (VmState.ACTIVE, dt.datetime(2026, 1, 3), got[1].host),
    ]


def test_info_cache_writes_look_the_cache_up_with_one_statement(engine: sa.Engine) -> None:
    first, second = _building(engine), _building(engine)
    with Session(engine) as session, session.begin():
        statements = StatementObjects(session)
        for uuid in (first, second):
            instances.write_info_cache(session, uuid, [])
    assert len(statements.seen) == 2 and statements.seen[0] is statements.seen[1]
