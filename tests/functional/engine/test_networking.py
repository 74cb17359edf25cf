"""Servers and their ports, through the compute API and the real network API.

The fake hosts do not wait for ports (no agents here) except ``_Plugging``,
which stands in for the libvirt driver: its guests run only once the network
service reported their ports up and the compute API passed that on.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from saphira.objects import Instance
from saphira.virt.fake import FakeDriver
from saphira.virt.types import BlockDeviceInfo, ImageMeta, NetworkInfo, VifPlugWait
from tests.functional.engine.conftest import Plane
from tests.functional.engine.networks import BRIDGE, Neutron, serve_network

AMBIGUOUS = "Multiple possible networks found, use a Network ID to be more specific."


@pytest.fixture
def neutron(plane: Plane) -> Iterator[Neutron]:
    with serve_network(plane) as service:
        yield service


def _project(plane: Plane) -> str:
    return plane.api.project_id("demo")


def _failed(plane: Plane, server_id: str) -> str:
    """The fault message of a server that went to ERROR."""
    shown = plane.api.wait(server_id, "ERROR", user="admin")
    return str(shown["fault"]["message"])


def _created(plane: Plane, **server: Any) -> str:
    response = plane.api.create(**server)
    assert response.status_code == 202, response.get_data(True)
    return str(response.get_json()["server"]["id"])


def test_a_network_gives_a_bound_port_shown_as_addresses(plane: Plane, neutron: Neutron) -> None:
    neutron.wire("host-a")
    plane.add_host("host-a")
    network = neutron.network("private", _project(plane), "10.20.0.0/24")
    server_id = _created(plane, networks=[{"uuid": network["id"]}])
    shown = plane.api.wait(server_id, "ACTIVE")

    (port,) = neutron.ports(device_id=server_id)
    assert (port["binding:host_id"], port["binding:vif_type"]) == ("host-a", "ovs")
    assert port["device_owner"] == "compute:nova" and port["project_id"] == _project(plane)
    assert port["binding:vif_details"]["bridge_name"] == BRIDGE
    ip, mac = port["fixed_ips"][0]["ip_address"], port["mac_address"]
    assert shown["addresses"] == {"private": [
        {"version": 4, "addr": ip, "OS-EXT-IPS:type": "fixed", "OS-EXT-IPS-MAC:mac_addr": mac}
    ]}  # fmt: skip
    listed = plane.api.ok("GET", "/servers/detail")["servers"]
    assert [s["addresses"] for s in listed] == [shown["addresses"]]
    basic = {"private": [{"version": 4, "addr": ip}]}
    assert plane.api.ok("GET", f"/servers/{server_id}/ips") == {"addresses": basic}
    assert plane.api.ok("GET", f"/servers/{server_id}/ips/private") == basic
    missing = plane.api.call("GET", f"/servers/{server_id}/ips/public")
    assert missing.status_code == 404
    assert plane.drivers["host-a"].guests[server_id].vifs == [port["id"]]

    plane.api.ok("DELETE", f"/servers/{server_id}", status=204)
    plane.api.wait_gone(server_id)
    assert neutron.ports(device_id=server_id) == []
    assert neutron.ports(network_id=network["id"]) == []


def test_a_users_port_is_kept_and_unbound_on_delete(plane: Plane, neutron: Neutron) -> None:
    neutron.wire("host-a")
    plane.add_host("host-a")
    network = neutron.network("private", _project(plane), "10.20.0.0/24")
    mine = neutron.port(network["id"], _project(plane), name="mine")
    server_id = _created(plane, networks=[{"port": mine["id"]}])
    shown = plane.api.wait(server_id, "ACTIVE")
    taken = neutron.show_port(mine["id"])
    assert (taken["device_id"], taken["binding:host_id"]) == (server_id, "host-a")
    assert shown["addresses"]["private"][0]["addr"] == mine["fixed_ips"][0]["ip_address"]

    plane.api.ok("DELETE", f"/servers/{server_id}", status=204)
    plane.api.wait_gone(server_id)
    kept = neutron.show_port(mine["id"])
    assert (kept["device_id"], kept["device_owner"], kept["binding:host_id"]) == ("", "", "")
    assert kept["binding:vif_type"] == "unbound"


def test_a_resize_binds_the_port_to_the_new_host_and_a_revert_back(
    plane: Plane, neutron: Neutron
) -> None:
    neutron.wire("host-a")
    plane.add_host("host-a")
    network = neutron.network("private", _project(plane), "10.20.0.0/24")
    server_id = _created(plane, networks=[{"uuid": network["id"]}])
    plane.api.wait(server_id, "ACTIVE")
    neutron.wire("host-b")
    plane.add_host("host-b")

    resized = plane.api.action(server_id, {"resize": {"flavorRef": "2"}})
    assert resized.status_code == 202, resized.get_data(True)
    assert plane.api.wait(server_id, "VERIFY_RESIZE", user="admin")["OS-EXT-SRV-ATTR:host"] == (
        "host-b"
    )
    (port,) = neutron.ports(device_id=server_id)
    assert (port["binding:host_id"], port["binding:vif_type"]) == ("host-b", "ovs")
    assert plane.drivers["host-b"].guests[server_id].vifs == [port["id"]]
    assert plane.api.ok("GET", f"/servers/{server_id}/ips")["addresses"]["private"]

    assert plane.api.action(server_id, {"revertResize": None}).status_code == 202
    plane.api.wait(server_id, "ACTIVE", user="admin")
    (port,) = neutron.ports(device_id=server_id)
    assert port["binding:host_id"] == "host-a"


def test_auto_with_two_networks_fails_clearly(plane: Plane, neutron: Neutron) -> None:
    neutron.wire("host-a")
    plane.add_host("host-a")
    neutron.network("one", _project(plane), "10.20.0.0/24")
    neutron.network("two", _project(plane), "10.21.0.0/24")
    server_id = _created(plane)  # 2.1 without networks: "auto"
    message = _failed(plane, server_id)
    assert message == f"Build of instance {server_id} aborted: {AMBIGUOUS}"
    assert neutron.ports(device_id=server_id) == []
    assert not plane.placement.get_allocations(server_id)["allocations"]


def test_auto_with_one_network_uses_it_and_none_gives_no_nic(
    plane: Plane, neutron: Neutron
) -> None:
    neutron.wire("host-a")
    plane.add_host("host-a")
    neutron.network("only", _project(plane), "10.20.0.0/24")
    auto = plane.api.wait(_created(plane), "ACTIVE")
    assert list(auto["addresses"]) == ["only"]
    server = {"name": "vm", "flavorRef": "1", "imageRef": plane.api.image_id, "networks": "none"}
    response = plane.api.call("POST", "/servers", {"server": server}, version="2.37")
    assert response.status_code == 202, response.get_data(True)
    nothing = plane.api.wait(response.get_json()["server"]["id"], "ACTIVE")
    assert nothing["addresses"] == {}
    assert neutron.ports(device_id=nothing["id"]) == []


def test_failed_builds_leave_no_port(plane: Plane, neutron: Neutron) -> None:
    neutron.wire("host-a")
    plane.add_host("host-a")
    plane.add_host("host-b")  # no L2 agent: its ports cannot bind
    network = neutron.network("private", _project(plane), "10.20.0.0/24")
    plane.faults.fail("spawn", hosts=["host-a"], reason="disk on fire")
    server_id = _created(plane, networks=[{"uuid": network["id"]}])
    _failed(plane, server_id)
    hosts_tried = plane.api.server(server_id, "admin")["fault"]["details"]  # admins only
    assert "disk on fire" in hosts_tried and "Binding failed for port" in hosts_tried
    assert neutron.ports(network_id=network["id"]) == []

    # A taken address the member can see is refused at once (test_network_authority);
    # a subnet with no address left is only found out at build, in the service's words.
    full = neutron.network("full", _project(plane), "10.21.0.0/29")  # pool .2-.6
    for _ in range(5):
        neutron.port(full["id"], _project(plane))
    server_id = _created(plane, networks=[{"uuid": full["id"]}])
    message = _failed(plane, server_id)
    assert message.startswith(f"Build of instance {server_id} aborted: Failed to allocate")
    assert f"No more IP addresses available on network {full['id']}" in message
    assert neutron.ports(device_id=server_id) == []


class _Plugging(FakeDriver):
    """Like the libvirt driver: the guest runs only once its ports are plugged."""

    wants_vif_plugged_events = True

    def __init__(self, host: str) -> None:
        super().__init__(host, host)
        self.waiting = threading.Event()

    def spawn(
        self,
        instance: Instance,
        image_meta: ImageMeta,
        network_info: NetworkInfo,
        block_device_info: BlockDeviceInfo | None = None,
        *,
        vifs_plugged: VifPlugWait | None = None,
    ) -> None:
        if network_info and vifs_plugged is not None:
            self.waiting.set()
            vifs_plugged()
        super().spawn(instance, image_meta, network_info, block_device_info)


def test_the_guest_runs_once_its_port_is_reported_up(plane: Plane, neutron: Neutron) -> None:
    neutron.wire("host-a")
    driver = _Plugging("host-a")
    plane.add_driver(driver)
    network = neutron.network("private", _project(plane), "10.20.0.0/24")
    server_id = _created(plane, networks=[{"uuid": network["id"]}])
    assert driver.waiting.wait(20)
    time.sleep(0.2)
    assert plane.api.server(server_id)["status"] == "BUILD"
    (port,) = neutron.ports(device_id=server_id)
    neutron.plugged("host-a", [port["id"]])
    plane.api.wait(server_id, "ACTIVE")
    assert neutron.show_port(port["id"])["status"] == "ACTIVE"


def test_a_port_that_never_comes_up_fails_the_build(plane: Plane, neutron: Neutron) -> None:
    plane.conf.set_override("vif_plugging_timeout", 1)
    for host in ("host-a", "host-b"):
        neutron.wire(host)
        plane.add_driver(_Plugging(host))
    network = neutron.network("private", _project(plane), "10.20.0.0/24")
    server_id = _created(plane, networks=[{"uuid": network["id"]}])
    message = _failed(plane, server_id)
    assert "never came up: no network-vif-plugged event within 1 s" in message
    assert neutron.ports(network_id=network["id"]) == []
    builds = [e for e in plane.api.action_detail(server_id, _request_id(plane, server_id))
              ["events"] if e["event"] == "compute_build_and_run_instance"]  # fmt: skip
    assert len(builds) == 1  # aborted: not tried on the other host


def _request_id(plane: Plane, server_id: str) -> str:
    (create,) = plane.api.actions(server_id)
    return str(create["request_id"])
