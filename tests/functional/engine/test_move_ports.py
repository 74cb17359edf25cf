"""A server's port follows it: a cold migrate binds it to the destination (and
a revert back), an evacuation binds it to the host the server is rebuilt on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.functional.engine.conftest import Plane
from tests.functional.engine.networks import Neutron, project, serve_network, server_on


@pytest.fixture
def neutron(plane: Plane) -> Iterator[Neutron]:
    with serve_network(plane) as service:
        yield service


def _on_a_then_b(plane: Plane, neutron: Neutron) -> str:
    neutron.wire("host-a")
    plane.add_host("host-a")
    server_id = server_on(plane, neutron.network("private", project(plane), "10.20.0.0/24"))
    plane.api.wait(server_id, "ACTIVE")
    neutron.wire("host-b")
    plane.add_host("host-b")
    return server_id


def _bound(neutron: Neutron, server_id: str) -> str:
    (port,) = neutron.ports(device_id=server_id)
    return str(port["binding:host_id"])


def test_a_migrated_servers_port_is_bound_to_the_destination(
    plane: Plane, neutron: Neutron
) -> None:
    server_id = _on_a_then_b(plane, neutron)
    assert plane.api.action(server_id, {"migrate": None}, user="admin").status_code == 202
    plane.api.wait(server_id, "VERIFY_RESIZE", user="admin")
    assert _bound(neutron, server_id) == "host-b"
    assert plane.api.action(server_id, {"revertResize": None}).status_code == 202
    plane.api.wait(server_id, "ACTIVE", user="admin")
    assert _bound(neutron, server_id) == "host-a"


def test_an_evacuated_servers_port_is_bound_where_it_was_rebuilt(
    plane: Plane, neutron: Neutron
) -> None:
    server_id = _on_a_then_b(plane, neutron)
    body = {"host": "host-a", "binary": "nova-compute", "forced_down": True}
    plane.api.ok("PUT", "/os-services/force-down", body, user="admin", version="2.11")
    evacuated = plane.api.action(server_id, {"evacuate": {}}, user="admin", version="2.14")
    assert evacuated.status_code == 200, evacuated.get_data(True)
    plane.api.wait(server_id, "ACTIVE", user="admin")
    assert _bound(neutron, server_id) == "host-b"
    (port,) = neutron.ports(device_id=server_id)
    assert plane.drivers["host-b"].guests[server_id].vifs == [port["id"]]
