"""What a member asks of the network through the compute API holds as if asked of
the network API itself: ports are made with the member's token, a subnet's
gateway goes to no server, addresses outside the pools only to the network's
owner or an admin, and another project's network, port or security group is
refused at the API before anything is claimed, on server create and on
os-interface attach alike. No refusal leaves a port behind."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from saphira.clients.network import NetworkClient, NetworkRefused
from saphira.identity.tokens import TokenPayload, utcnow
from tests.functional.engine.conftest import Plane
from tests.functional.engine.networks import Neutron, project, refused, serve_network, server_on
from tests.wsgi import JsonResponse


@dataclass
class Nets:
    shared: dict[str, Any]  # the admin project's, shared: 10.40.0.0/24, pool .10-.100
    own: dict[str, Any]  # the demo project's: 10.41.0.0/24, pool .10-.100
    theirs: dict[str, Any]  # the admin project's, not shared: 10.42.0.0/24


def _network(neutron: Neutron, name: str, owner: str, prefix: str, **attrs: Any) -> dict[str, Any]:
    body = {"network": {"name": name, "project_id": owner, **attrs}}
    network: dict[str, Any] = neutron.ok("POST", "/networks", 201, body)["network"]
    pools = [{"start": f"{prefix}.10", "end": f"{prefix}.100"}]
    subnet = {"network_id": network["id"], "cidr": f"{prefix}.0/24", "ip_version": 4,
              "project_id": owner, "allocation_pools": pools}  # fmt: skip
    neutron.ok("POST", "/subnets", 201, {"subnet": subnet})
    return network


@pytest.fixture
def neutron(plane: Plane) -> Iterator[Neutron]:
    with serve_network(plane) as service:
        yield service


@pytest.fixture
def nets(plane: Plane, neutron: Neutron) -> Nets:
    neutron.wire("host-a")
    plane.add_host("host-a")
    admin = plane.api.project_id("admin")
    return Nets(
        _network(neutron, "shared", admin, "10.40.0", shared=True),
        _network(neutron, "own", project(plane), "10.41.0"),
        _network(neutron, "theirs", admin, "10.42.0"),
    )


def _create(plane: Plane, *networks: dict[str, Any], user: str = "demo",
            **server: Any) -> JsonResponse:  # fmt: skip
    return plane.api.create(user=user, networks=list(networks), **server)


def _active(plane: Plane, response: JsonResponse, user: str = "demo") -> dict[str, Any]:
    assert response.status_code == 202, response.get_data(True)
    return plane.api.wait(response.get_json()["server"]["id"], "ACTIVE", user=user)


def _no_servers(plane: Plane) -> None:
    assert plane.api.ok("GET", "/servers")["servers"] == []


def test_the_gateway_is_refused_to_everyone_and_leaves_no_port(
    plane: Plane, neutron: Neutron, nets: Nets
) -> None:
    for network, user in ((nets.shared, "demo"), (nets.own, "demo"), (nets.shared, "admin")):
        gateway = neutron.ok("GET", f"/subnets?network_id={network['id']}")["subnets"][0][
            "gateway_ip"
        ]
        response = _create(plane, {"uuid": network["id"], "fixed_ip": gateway}, user=user)
        assert response.status_code == 400, response.get_data(True)
        assert f"{gateway} is the gateway of subnet" in response.get_json()["badRequest"]["message"]
        assert neutron.ports(network_id=network["id"]) == []
    _no_servers(plane)
    assert plane.api.ok("GET", "/servers", user="admin")["servers"] == []


def test_out_of_pool_addresses_are_the_owners_and_admins(
    plane: Plane, neutron: Neutron, nets: Nets
) -> None:
    subnet = _subnet_id(neutron, nets.shared)
    refused(_create(plane, {"uuid": nets.shared["id"], "fixed_ip": "10.40.0.200"}), 400,
            f"Fixed IP address 10.40.0.200 is outside the allocation pools of subnet {subnet}: "
            "only the network's owner or an admin may choose it.")  # fmt: skip
    assert neutron.ports(network_id=nets.shared["id"]) == []
    _no_servers(plane)

    mine = _active(plane, _create(plane, {"uuid": nets.own["id"], "fixed_ip": "10.41.0.200"}))
    assert mine["addresses"]["own"][0]["addr"] == "10.41.0.200"
    admins = _active(plane, _create(plane, {"uuid": nets.shared["id"], "fixed_ip": "10.40.0.200"},
                                    user="admin"), user="admin")  # fmt: skip
    assert admins["addresses"]["shared"][0]["addr"] == "10.40.0.200"


def _subnet_id(neutron: Neutron, network: dict[str, Any]) -> str:
    return str(neutron.ok("GET", f"/subnets?network_id={network['id']}")["subnets"][0]["id"])


def test_a_members_port_is_made_with_its_own_token(
    plane: Plane, neutron: Neutron, nets: Nets
) -> None:
    """An address in the pool of a shared network the member does not own: the
    network's policy (create_port:fixed_ips:ip_address) refuses the member, so
    the build fails with the network service's words, as `port create` would."""
    response = _create(plane, {"uuid": nets.shared["id"], "fixed_ip": "10.40.0.50"})
    assert response.status_code == 202, response.get_data(True)
    server_id = response.get_json()["server"]["id"]
    fault = plane.api.wait(server_id, "ERROR", user="admin")["fault"]["message"]
    assert "rule:create_port:fixed_ips:ip_address is disallowed by policy" in fault
    assert neutron.ports(network_id=nets.shared["id"]) == []
    anywhere = _active(plane, _create(plane, {"uuid": nets.shared["id"]}))
    (port,) = neutron.ports(device_id=anywhere["id"])
    assert port["project_id"] == project(plane) and port["binding:host_id"] == "host-a"


def test_another_projects_network_port_and_group_are_refused_at_the_api(
    plane: Plane, neutron: Neutron, nets: Nets
) -> None:
    admin, demo = plane.api.project_id("admin"), project(plane)
    theirs = nets.theirs["id"]
    refused(_create(plane, {"uuid": theirs}), 400, f"Network {theirs} could not be found.")
    nowhere = str(uuid.uuid4())
    refused(_create(plane, {"uuid": nowhere}), 400, f"Network {nowhere} could not be found.")
    their_port = neutron.port(nets.shared["id"], admin)
    refused(_create(plane, {"port": their_port["id"]}), 400,
            f"Port id {their_port['id']} could not be found.")  # fmt: skip
    group = neutron.ok("POST", "/security-groups", 201,
                       {"security_group": {"name": "theirs", "project_id": admin}})  # fmt: skip
    for name in ("theirs", group["security_group"]["id"], "nope"):
        refused(_create(plane, {"uuid": nets.own["id"]}, security_groups=[{"name": name}]), 400,
                f"Security group {name} not found for project {demo}.")  # fmt: skip
    used = neutron.port(nets.own["id"], demo, device_id=str(uuid.uuid4()))
    refused(_create(plane, {"port": used["id"]}), 409, f"Port {used['id']} is still in use.")
    _no_servers(plane)
    assert {p["id"] for p in neutron.ports()} == {their_port["id"], used["id"]}


def test_a_port_or_an_address_is_for_one_server_only(
    plane: Plane, neutron: Neutron, nets: Nets
) -> None:
    mine = neutron.port(nets.own["id"], project(plane))
    refused(_create(plane, {"port": mine["id"]}, max_count=2), 400,
            "Failed to launch instances: Unable to launch multiple instances with a single "
            "configured port ID. Please launch your instance one by one with different "
            "ports.")  # fmt: skip
    chosen = {"uuid": nets.own["id"], "fixed_ip": "10.41.0.20"}
    refused(_create(plane, chosen, max_count=2), 400,
            "Failed to launch instances: max_count cannot be greater than 1 if an fixed_ip "
            "is specified.")  # fmt: skip
    held = neutron.port(nets.own["id"], project(plane), device_id="vm-x",
                        fixed_ips=[{"ip_address": "10.41.0.30"}])  # fmt: skip
    refused(_create(plane, {"uuid": nets.own["id"], "fixed_ip": "10.41.0.30"}), 400,
            "Fixed IP address 10.41.0.30 is already in use on instance vm-x.")  # fmt: skip
    _no_servers(plane)
    assert {p["id"] for p in neutron.ports()} == {mine["id"], held["id"]}


def test_the_same_holds_on_attach(plane: Plane, neutron: Neutron, nets: Nets) -> None:
    server_id = server_on(plane, nets.own)
    path = f"/servers/{server_id}/os-interface"

    def attach(**asked: Any) -> JsonResponse:
        return plane.api.call("POST", path, {"interfaceAttachment": asked})

    def on(network: dict[str, Any], ip: str) -> JsonResponse:
        return attach(net_id=network["id"], fixed_ips=[{"ip_address": ip}])

    assert on(nets.shared, "10.40.0.1").status_code == 400
    assert on(nets.own, "10.41.0.1").status_code == 400
    assert on(nets.shared, "10.40.0.200").status_code == 400
    refused(on(nets.shared, "10.40.0.50"), 403,
            "rule:create_port:fixed_ips:ip_address is disallowed by policy")  # fmt: skip
    theirs = nets.theirs["id"]
    refused(attach(net_id=theirs), 404, f"Network {theirs} could not be found.")
    their_port = neutron.port(nets.shared["id"], plane.api.project_id("admin"))
    refused(attach(port_id=their_port["id"]), 404,
            f"Port id {their_port['id']} could not be found.")  # fmt: skip
    assert len(neutron.ports(device_id=server_id)) == 1
    assert {p["network_id"] for p in neutron.ports()} == {nets.own["id"], nets.shared["id"]}
    assert len(neutron.ports(network_id=nets.shared["id"])) == 1  # their port alone
    assert on(nets.own, "10.41.0.200").status_code == 200  # the owner may leave the pool


def test_a_users_token_that_expired_meanwhile_still_makes_the_port(
    plane: Plane, neutron: Neutron, nets: Nets
) -> None:
    """The compute agent sends its service token along (X-Service-Token), so a
    build that reached the network step after the user's token expired still
    gets the port, as the user and within the user's rights."""
    identity = plane.api.identity
    expired = identity.backend.tokens.issue(TokenPayload(
        user_id=identity.demo.user_id, methods=("password",), project_id=identity.demo.project_id,
        issued_at=utcnow() - dt.timedelta(hours=2), expires_at=utcnow() - dt.timedelta(minutes=1),
    ))  # fmt: skip
    assert plane.network is not None
    alone = NetworkClient(neutron.url, lambda: expired)
    with pytest.raises(NetworkRefused) as caught:
        alone.show_network(nets.own["id"])
    assert caught.value.code == 401
    assert caught.value.message == "The request you have made requires authentication."
    user = plane.network.as_user(expired)
    port = user.create_port({"network_id": nets.own["id"], "device_id": "vm"})
    assert port["project_id"] == project(plane)
    with pytest.raises(NetworkRefused) as refused_:
        user.create_port(
            {"network_id": nets.shared["id"], "fixed_ips": [{"ip_address": "10.40.0.50"}]}
        )
    assert refused_.value.code == 403
