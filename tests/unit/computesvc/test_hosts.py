"""saphira.computesvc.hosts: services and nodes as frozen records, and the
service writes an admin may make."""

from __future__ import annotations

import dataclasses
import uuid

import sqlalchemy as sa
from sqlalchemy.orm import ORMExecuteState, Session

from saphira.computesvc import hosts
from saphira.db.cell.models import Service
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


def _statements(cloud: Cloud, *hosts_asked: str | None) -> list[object]:
    """The statements one caller's ``hosts.services`` runs for each host asked, in order."""
    seen: list[object] = []

    def executed(state: ORMExecuteState) -> None:
        seen.append(state.statement)

    sa.event.listen(Session, "do_orm_execute", executed)
    try:
        with cloud.directory.api() as session:
            caller = cloud.caller(session, admin=True)
            for host in hosts_asked:
                hosts.services(caller, host)
    finally:
        sa.event.remove(Session, "do_orm_execute", executed)
    return seen


def test_the_services_are_read_by_statements_built_once(cloud: Cloud) -> None:
    """What an admin's GET /servers/{id} reads for the host status (the cells, once per
    request, then each cell's services): the very same statement objects at each call."""
    register_compute(cloud.cell_url, "node1")
    seen = _statements(cloud, None, None)
    assert len(seen) == 3 and seen[1] is seen[2]
    again = _statements(cloud, "node1", "node1")
    assert len(again) == 3 and again[1] is again[2] and again[0] is seen[0]


def test_the_services_on_a_host_are_those_of_every_service_on_it_in_order(cloud: Cloud) -> None:
    made = (("node1", "nova-compute", 0), ("node2", "nova-compute", 0),
            ("node1", "nova-conductor", 0), ("Node1", "nova-compute", 0),
            ("node1", "nova-compute", 9), ("node1", "nova-scheduler", 0))  # fmt: skip
    with cloud.directory.cell(cloud.cell_url) as session:
        for host, binary, deleted in made:
            session.add(Service(uuid=str(uuid.uuid4()), host=host, binary=binary,
                                topic=binary, deleted=deleted))  # fmt: skip
        session.commit()
    with cloud.directory.api() as session:
        caller = cloud.caller(session, admin=True)
        every = hosts.services(caller)
        for host in ("node1", "node2", "Node1", "node3", ""):
            on = hosts.services(caller, host)
            assert on == [entry for entry in every if entry.service.host == host], host
    assert len(every) == 5  # the deleted one is no service
