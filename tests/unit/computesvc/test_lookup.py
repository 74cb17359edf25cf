"""saphira.computesvc.lookup: a server found where it lives, within what the caller sees."""

from __future__ import annotations

from dataclasses import replace

import pytest
import sqlalchemy as sa

from saphira.computesvc import lookup
from saphira.db.api.cells import CELL0_UUID
from saphira.db.api.models import InstanceMapping
from saphira.db.cell import instances
from saphira.db.cell.models import InstanceFault as InstanceFaultRow
from saphira.db.directory import cells_in
from saphira.domain.states import VmState
from saphira.exception import InstanceNotFound
from tests.unit.computesvc.conftest import Cloud
from tests.unit.db.instance_helpers import make


def test_a_build_request_is_found_without_a_cell(cloud: Cloud) -> None:
    instance = cloud.building()
    with cloud.directory.api() as session:
        found = lookup.locate(cloud.caller(session), instance.uuid)
    assert found.building and found.cell is None
    assert found.instance.uuid == instance.uuid


def test_a_placed_server_is_found_in_its_cell(cloud: Cloud) -> None:
    instance = cloud.placed()
    with cloud.directory.api() as session:
        found = lookup.locate(cloud.caller(session), instance.uuid)
    assert found.cell is not None and found.cell.name == "cell1"
    assert found.instance.vm_state == "active"


def test_another_projects_server_is_not_found_unless_admin(cloud: Cloud) -> None:
    instance = cloud.placed(project="p2")
    with cloud.directory.api() as session:
        with pytest.raises(InstanceNotFound):
            lookup.locate(cloud.caller(session, "p1"), instance.uuid)
        assert lookup.locate(cloud.caller(session, "p1", admin=True), instance.uuid).cell


def test_an_unknown_server_is_not_found(cloud: Cloud) -> None:
    with cloud.directory.api() as session, pytest.raises(InstanceNotFound):
        lookup.locate(cloud.caller(session), "00000000-0000-0000-0000-00000000abcd")


def test_faults_and_specs_of_servers_without_any_are_empty(cloud: Cloud) -> None:
    instance = cloud.placed()
    with cloud.directory.api() as session:
        caller = cloud.caller(session)
        assert lookup.faults_of(caller, [instance.uuid]) == {}
        assert lookup.specs_of(caller, [instance.uuid]) == {}
        assert lookup.groups_of(caller, [instance.uuid]) == {}


def _fault(cloud: Cloud, uuid_: str) -> None:
    with cloud.directory.cell(cloud.cell_url) as session:
        session.add(InstanceFaultRow(instance_uuid=uuid_, code=500, message="boom", host="n"))


def test_an_active_servers_fault_is_not_read_it_would_not_be_shown(cloud: Cloud) -> None:
    instance = cloud.placed()
    _fault(cloud, instance.uuid)  # an old fault: Nova's views show it in ERROR or DELETED only
    statements: list[str] = []
    engine = cloud.directory.database(cloud.cell_url).engine
    sa.event.listen(engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    with cloud.directory.api() as session:
        caller = cloud.caller(session)
        assert lookup.fault_of(caller, lookup.locate(caller, instance.uuid)) is None
    assert not [s for s in statements if "instance_faults" in s], statements


def test_an_error_servers_fault_is_read(cloud: Cloud) -> None:
    instance = replace(make(), vm_state=VmState.ERROR)
    with cloud.directory.cell(cloud.cell_url) as session:
        instances.create(session, instance)
    with cloud.directory.api() as session:
        session.add(InstanceMapping(instance_uuid=instance.uuid, project_id="p1",
                                    cell_id=cloud.cell_id))  # fmt: skip
    _fault(cloud, instance.uuid)
    with cloud.directory.api() as session:
        caller = cloud.caller(session)
        fault = lookup.fault_of(caller, lookup.locate(caller, instance.uuid))
    assert fault is not None and fault.message == "boom"


def test_a_shows_api_database_reads_reuse_their_statements(cloud: Cloud) -> None:
    """The mapping, groups and specs of two servers are read by the very same statement
    objects (built once: their cache keys are computed once)."""
    placed = [cloud.placed(), cloud.placed()]
    seen: list[object] = []
    with cloud.directory.api() as session:
        sa.event.listen(session, "do_orm_execute", lambda state: seen.append(state.statement))
        caller = cloud.caller(session)
        for instance in placed:
            lookup.locate(caller, instance.uuid)
            lookup.groups_of(caller, [instance.uuid])
            lookup.specs_of(caller, [instance.uuid])
    assert len(seen) == 6
    assert all(one is other for one, other in zip(seen[:3], seen[3:], strict=True))


def test_a_caller_reads_the_cells_once_and_answers_as_the_api_database(cloud: Cloud) -> None:
    with cloud.directory.api() as session:
        caller = cloud.caller(session)
        first = caller.cells(with_cell0=True)
        assert first == cells_in(session, with_cell0=True)
        assert caller.cells() == cells_in(session) == [c for c in first if c.uuid != CELL0_UUID]
        first.clear()  # a caller's list is its own
        statements: list[str] = []
        sa.event.listen(session.get_bind(), "before_cursor_execute",
                        lambda *args: statements.append(args[2]))  # fmt: skip
        assert caller.cells(with_cell0=True) == cells_in(session, with_cell0=True)
    assert len(statements) == 1  # cells_in's own: the caller read nothing again
