"""saphira.computesvc.actions and servers: the compare-and-swap, the record, delete."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from saphira.computesvc import action_log, actions, listing, lookup, servers
from saphira.db.api.models import InstanceMapping
from saphira.domain.table import Action
from saphira.exception import Conflict, InstanceInvalidState
from tests.unit.computesvc.conftest import Cloud


def test_an_action_moves_the_state_and_is_recorded(cloud: Cloud) -> None:
    instance = cloud.placed()
    with cloud.directory.api() as session:
        caller = cloud.caller(session)
        found = lookup.locate(caller, instance.uuid)
        actions.run(caller, found, Action.STOP)
        assert found.instance.task_state == "powering-off"
        recorded = action_log.actions(caller, found)
    assert [(r.action, r.request_id) for r in recorded] == [("stop", caller.context.request_id)]
    assert cloud.row(instance.uuid).task_state == "powering-off"


def test_a_stale_read_loses_the_compare_and_swap(cloud: Cloud) -> None:
    instance = cloud.placed()
    with cloud.directory.api() as session:
        caller = cloud.caller(session)
        first = lookup.locate(caller, instance.uuid)
        second = lookup.locate(caller, instance.uuid)
        actions.run(caller, first, Action.STOP)
        with pytest.raises(InstanceInvalidState):
            actions.run(caller, second, Action.PAUSE)
        assert len(action_log.actions(caller, first)) == 1  # the loser recorded nothing


def test_an_action_on_a_build_request_is_a_conflict(cloud: Cloud) -> None:
    instance = cloud.building()
    with cloud.directory.api() as session:
        caller = cloud.caller(session)
        with pytest.raises(Conflict, match="vm_state building"):
            actions.run(caller, lookup.locate(caller, instance.uuid), Action.STOP)


def test_save_writes_where_the_server_lives(cloud: Cloud) -> None:
    building, placed = cloud.building(), cloud.placed()
    with cloud.directory.api() as session:
        caller = cloud.caller(session)
        for instance in (building, placed):
            servers.save(caller, lookup.locate(caller, instance.uuid), metadata={"k": "v"})
    with cloud.directory.api() as session:
        caller = cloud.caller(session)
        for instance in (building, placed):
            assert lookup.locate(caller, instance.uuid).instance.metadata == {"k": "v"}


def test_delete_of_a_build_request_forgets_it(cloud: Cloud) -> None:
    instance = cloud.building()
    with cloud.directory.api() as session:
        caller = cloud.caller(session)
        assert servers.delete(caller, lookup.locate(caller, instance.uuid)) is None
    with cloud.directory.api() as session:
        assert session.scalars(sa.select(InstanceMapping)).all() == []
        assert listing.gather(cloud.caller(session), listing.InstanceFilters()) == []


def test_delete_on_a_host_begins_the_delete_and_names_the_host(cloud: Cloud) -> None:
    instance = cloud.placed(host="node1")
    with cloud.directory.api() as session:
        caller = cloud.caller(session)
        terminate = servers.delete(caller, lookup.locate(caller, instance.uuid))
    assert terminate is not None and terminate.host == "node1"
    assert cloud.row(instance.uuid).task_state == "deleting"


def test_delete_without_a_host_is_local(cloud: Cloud) -> None:
    instance = cloud.placed(host=None)
    with cloud.directory.api() as session:
        caller = cloud.caller(session)
        assert servers.delete(caller, lookup.locate(caller, instance.uuid)) is None
    assert cloud.row(instance.uuid).terminated_at is not None
    with cloud.directory.api() as session:
        assert session.scalars(sa.select(InstanceMapping)).all() == []


def test_listing_merges_build_requests_and_cells_for_the_project(cloud: Cloud) -> None:
    mine = {cloud.building().uuid, cloud.placed().uuid}
    cloud.placed(project="p2")
    with cloud.directory.api() as session:
        listed = listing.gather(cloud.caller(session), listing.InstanceFilters(project_id="p1"))
    assert {i.uuid for i in listed} == mine
