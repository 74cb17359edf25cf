"""saphira.computesvc.hosts: services and nodes as frozen records, and the
service writes an admin may make."""

from __future__ import annotations

import dataclasses

import sqlalchemy as sa
from sqlalchemy.orm import ORMExecuteState, Session

from saphira.computesvc import hosts
from tests.unit.computesvc.conftest import Cloud
from tests.unit.db.helpers import register_compute


def test_services_and_nodes_come_as_records_with_their_cell(cloud: Cloud) -> None:
    node_uuid = register_compute(cloud.cell_url, "node1")
    with cloud.directory.api() as session:
        caller = cloud.caller(session, admin=True)
        [entry] = hosts.services(caller)
        [node] = hosts.nodes(caller)
    assert (entry.service.host, entry.service.binary, entry.cell.name) == (
        "node1", "nova-compute", "cell1")  # fmt: skip
    assert node.node.uuid == node_uuid and node.service == entry.service
    assert dataclasses.is_dataclass(entry.service) and dataclasses.is_dataclass(node.node)


def test_a_service_is_disabled_then_deleted(cloud: Cloud) -> None:
    register_compute(cloud.cell_url, "node1")
    with cloud.directory.api() as session:
        caller = cloud.caller(session, admin=True)
        [entry] = hosts.services(caller)
        changed = hosts.update_service(caller, entry, disabled=True, disabled_reason="why")
        assert (changed.service.disabled, changed.service.disabled_reason) == (True, "why")
        assert hosts.services(caller)[0].service.disabled
        hosts.delete_service(caller, entry)
        assert hosts.services(caller) == []
        assert hosts.nodes(caller)[0].service is None


def test_the_services_are_read_by_statements_built_once(cloud: Cloud) -> None:
    """What an admin's GET /servers/{id} reads for the host status (the cells, then each
    cell's services): the very same statement objects at each call."""
    register_compute(cloud.cell_url, "node1")
    seen: list[object] = []

    def executed(state: ORMExecuteState) -> None:
        seen.append(state.statement)

    sa.event.listen(Session, "do_orm_execute", executed)
    try:
        with cloud.directory.api() as session:
            caller = cloud.caller(session, admin=True)
            hosts.services(caller)
            hosts.services(caller)
    finally:
        sa.event.remove(Session, "do_orm_execute", executed)
    assert len(seen) == 4 and seen[0] is seen[2] and seen[1] is seen[3]
