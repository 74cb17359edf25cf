"""saphira.computesvc.lookup: a server found where it lives, within what the caller sees."""

from __future__ import annotations

import pytest

from saphira.computesvc import lookup
from saphira.exception import InstanceNotFound
from tests.unit.computesvc.conftest import Cloud


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
