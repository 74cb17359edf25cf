"""saphira.computesvc.hosts: services and nodes as frozen records, and the
service writes an admin may make."""

from __future__ import annotations

import dataclasses

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
