"""An admin's destination at create, on fake hosts: ``az:host[:node]`` (Nova's forced
host) and, from 2.74, ``host`` and ``hypervisor_hostname`` put the server there; an
unknown host or node is a 400, a member asking is a 403, and neither makes a server."""

from __future__ import annotations

from typing import Any

import pytest

from tests.functional.engine.conftest import Plane
from tests.wsgi import JsonResponse

HOSTS = ("host-a", "host-b", "host-c")


def _create(plane: Plane, version: str | None = None, user: str = "admin",
            **extra: Any) -> JsonResponse:  # fmt: skip
    server = {"name": "vm", "flavorRef": "1", "imageRef": plane.api.image_id, **extra}
    if version is not None:  # from 2.37 networks are required
        server["networks"] = "none"
    return plane.api.call("POST", "/servers", {"server": server}, user=user, version=version)


def _placed(plane: Plane, version: str | None = None, **extra: Any) -> str:
    response = _create(plane, version, **extra)
    assert response.status_code == 202, response.get_data(True)
    server_id = str(response.get_json()["server"]["id"])
    return str(plane.api.wait(server_id, "ACTIVE", user="admin")["OS-EXT-SRV-ATTR:host"])


@pytest.fixture
def hosts(plane: Plane) -> Plane:
    for host in HOSTS:
        plane.add_host(host)
    return plane


def test_a_forced_host_in_the_zone_places_each_server_there(hosts: Plane) -> None:
    # The same host twice: the scheduler alone would spread them.
    assert [_placed(hosts, availability_zone="nova:host-c") for _ in range(2)] == ["host-c"] * 2
    assert _placed(hosts, availability_zone="nova:host-b:host-b") == "host-b"
    assert _placed(hosts, availability_zone="nova::host-a") == "host-a"


def test_2_74_host_and_hypervisor_hostname_place_the_server(hosts: Plane) -> None:
    assert _placed(hosts, "2.74", host="host-b") == "host-b"
    assert _placed(hosts, "2.74", hypervisor_hostname="host-c") == "host-c"
    assert _placed(hosts, "2.74", host="host-a", hypervisor_hostname="host-a") == "host-a"


@pytest.mark.parametrize(
    ("version", "user", "extra", "status", "says"),
    [
        ("2.74", "admin", {"host": "nowhere"}, 400, "Compute host nowhere could not be found."),
        ("2.74", "admin", {"hypervisor_hostname": "nowhere"}, 400,
         "Compute host nowhere could not be found."),
        ("2.74", "admin", {"host": "host-a", "hypervisor_hostname": "host-b"}, 400,
         "Compute host host-b could not be found."),
        ("2.73", "admin", {"host": "host-a"}, 400, "host"),
        ("2.74", "demo", {"host": "host-a"}, 403, "forced_host"),
        (None, "demo", {"availability_zone": "nova:host-a"}, 403, "forced_host"),
    ],
    ids=["unknown-host", "unknown-node", "node-of-another-host", "before-2.74", "member",
         "member-zone"],
)  # fmt: skip
def test_a_refused_destination_makes_nothing(
    hosts: Plane, version: str | None, user: str, extra: dict[str, str], status: int, says: str
) -> None:
    response = _create(hosts, version, user, **extra)
    assert response.status_code == status, response.get_data(True)
    assert says in response.get_data(True)
    listed = hosts.api.ok("GET", "/servers?all_tenants=1", user="admin")["servers"]
    assert listed == []
