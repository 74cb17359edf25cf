"""os-interface through the compute API, the fake hosts and the real network API:
every shape checked against tempest's schemas, every refusal in Nova's words."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import pytest
from tempest.lib.api_schema.response.compute.v2_1 import interfaces as interfaces21
from tempest.lib.api_schema.response.compute.v2_70 import interfaces as interfaces270

from saphira.objects import Instance
from saphira.virt.fake import FakeDriver
from saphira.virt.types import VIF
from tests.functional.engine.conftest import Plane
from tests.functional.engine.networks import (
    Neutron,
    check,
    project,
    refused,
    serve_network,
    server_on,
)
from tests.polling import wait_for
from tests.wsgi import JsonResponse

AMBIGUOUS = "Multiple possible networks found, use a Network ID to be more specific."


def detached(plane: Plane, server_id: str, port_id: str) -> bool:
    return port_id not in {i["port_id"] for i in listed(plane, server_id)}


@pytest.fixture
def neutron(plane: Plane) -> Iterator[Neutron]:
    with serve_network(plane) as service:
        yield service


def attach(plane: Plane, server_id: str, version: str | None = None, **asked: Any) -> JsonResponse:
    body = {"interfaceAttachment": asked}
    return plane.api.call("POST", f"/servers/{server_id}/os-interface", body, version=version)


def listed(plane: Plane, server_id: str) -> list[dict[str, Any]]:
    body = check(interfaces21.list_interfaces,
                 plane.api.call("GET", f"/servers/{server_id}/os-interface"))  # fmt: skip
    return list(body["interfaceAttachments"])


@pytest.fixture
def wired(plane: Plane, neutron: Neutron) -> dict[str, Any]:
    """host-a with an L2 agent and the demo project's network on it."""
    neutron.wire("host-a")
    plane.add_host("host-a")
    return neutron.network("private", project(plane), "10.30.0.0/24")


def test_attach_by_network_port_and_auto_then_detach(
    plane: Plane, neutron: Neutron, wired: dict[str, Any]
) -> None:
    server_id = server_on(plane, wired)
    (first,) = listed(plane, server_id)
    assert first["net_id"] == wired["id"] and first["port_state"] in ("ACTIVE", "DOWN")

    auto = check(interfaces21.get_create_interfaces, attach(plane, server_id))
    by_ip = check(interfaces21.get_create_interfaces,
                  attach(plane, server_id, net_id=wired["id"],
                         fixed_ips=[{"ip_address": "10.30.0.77"}]))  # fmt: skip
    assert by_ip["interfaceAttachment"]["fixed_ips"][0]["ip_address"] == "10.30.0.77"
    mine = neutron.port(wired["id"], project(plane), name="mine")
    taken = check(interfaces270.get_create_interfaces,
                  attach(plane, server_id, "2.70", port_id=mine["id"], tag="data"))  # fmt: skip
    assert taken["interfaceAttachment"]["tag"] == "data"
    bound = neutron.show_port(mine["id"])
    assert (bound["device_id"], bound["binding:host_id"]) == (server_id, "host-a")

    ports = {p["port_id"] for p in listed(plane, server_id)}
    made = {auto["interfaceAttachment"]["port_id"], by_ip["interfaceAttachment"]["port_id"]}
    assert ports == {first["port_id"], mine["id"], *made}
    assert set(plane.drivers["host-a"].guests[server_id].vifs) == ports
    shown = plane.api.server(server_id)
    assert sorted(a["addr"] for a in shown["addresses"]["private"]) == sorted(
        p["fixed_ips"][0]["ip_address"] for p in neutron.ports(device_id=server_id)
    )
    at_270 = check(interfaces270.list_interfaces, plane.api.call(
        "GET", f"/servers/{server_id}/os-interface", version="2.70"))  # fmt: skip
    tags = {i["port_id"]: i["tag"] for i in at_270["interfaceAttachments"]}
    assert tags == {port: ("data" if port == mine["id"] else None) for port in ports}
    one = check(interfaces21.get_create_interfaces, plane.api.call(
        "GET", f"/servers/{server_id}/os-interface/{mine['id']}"))  # fmt: skip
    assert one["interfaceAttachment"]["mac_addr"] == mine["mac_address"]

    for port_id in (by_ip["interfaceAttachment"]["port_id"], mine["id"]):
        gone = plane.api.call("DELETE", f"/servers/{server_id}/os-interface/{port_id}")
        assert gone.status_code == 202, gone.get_data(True)
        wait_for("the interface detached", partial(detached, plane, server_id, port_id), 20, 0.02)
    assert neutron.ports(fixed_ips="ip_address=10.30.0.77") == []  # Nova made it: deleted
    kept = neutron.show_port(mine["id"])  # the user's: kept, unbound
    assert (kept["device_id"], kept["device_owner"], kept["binding:host_id"]) == ("", "", "")
    assert len(plane.drivers["host-a"].guests[server_id].vifs) == 2
    assert len(plane.instance(server_id).network_info) == 2
    recorded = [a["action"] for a in plane.api.actions(server_id)]
    assert recorded.count("attach_interface") == 3 and recorded.count("detach_interface") == 2

    plane.api.ok("DELETE", f"/servers/{server_id}", status=204)
    plane.api.wait_gone(server_id)
    assert neutron.ports(network_id=wired["id"]) == [kept]


def test_the_action_events_say_what_happened(plane: Plane, wired: dict[str, Any]) -> None:
    server_id = server_on(plane, wired)
    check(interfaces21.get_create_interfaces, attach(plane, server_id))
    plane.faults.fail("attach_interface", reason="no PCI slot left")
    failed = attach(plane, server_id)
    assert failed.status_code == 500, failed.get_data(True)
    events = {}
    for action in plane.api.actions(server_id):
        if action["action"] == "attach_interface":
            (event,) = plane.api.action_detail(server_id, action["request_id"])["events"]
            events[event["result"]] = event
    assert set(events) == {"Success", "Error"}
    assert events["Error"]["event"] == "compute_attach_interface"
    assert "no PCI slot left" in events["Error"]["traceback"]


def test_a_failed_attach_leaves_no_port_behind(
    plane: Plane, neutron: Neutron, wired: dict[str, Any]
) -> None:
    server_id = server_on(plane, wired)
    before = plane.instance(server_id).network_info
    plane.faults.fail("attach_interface", reason="no PCI slot left")
    assert attach(plane, server_id).status_code == 500
    mine = neutron.port(wired["id"], project(plane), name="mine")
    assert attach(plane, server_id, port_id=mine["id"]).status_code == 500
    assert {p["id"] for p in neutron.ports(network_id=wired["id"])} == {
        before[0].port_id,
        mine["id"],
    }
    kept = neutron.show_port(mine["id"])
    assert (kept["device_id"], kept["binding:host_id"]) == ("", "")
    assert plane.instance(server_id).network_info == before
    assert plane.drivers["host-a"].guests[server_id].vifs == [before[0].port_id]


def test_a_failed_detach_keeps_the_nic(
    plane: Plane, neutron: Neutron, wired: dict[str, Any]
) -> None:
    server_id = server_on(plane, wired)
    (port,) = neutron.ports(device_id=server_id)
    plane.faults.fail("detach_interface", reason="guest holds on")
    response = plane.api.call("DELETE", f"/servers/{server_id}/os-interface/{port['id']}")
    assert response.status_code == 202
    wait_for(
        "the detach action recorded",
        lambda: any(a["action"] == "detach_interface" for a in plane.api.actions(server_id)),
        interval=0.02,
    )
    request_id = next(a["request_id"] for a in plane.api.actions(server_id)
                      if a["action"] == "detach_interface")  # fmt: skip
    wait_for(
        "the detach event failed",
        lambda: (
            [event["result"] for event in plane.api.action_detail(server_id, request_id)["events"]]
            == ["Error"]
        ),  # the action is recorded before its event opens
        interval=0.02,
    )
    assert neutron.show_port(port["id"])["device_id"] == server_id
    assert [vif.port_id for vif in plane.instance(server_id).network_info] == [port["id"]]
    assert plane.drivers["host-a"].guests[server_id].vifs == [port["id"]]


def test_refusals(plane: Plane, neutron: Neutron, wired: dict[str, Any]) -> None:
    server_id = server_on(plane, wired)
    path = f"/servers/{server_id}/os-interface"
    nowhere, other = str(uuid.uuid4()), neutron.network("other", project(plane), "10.31.0.0/24")
    refused(attach(plane, server_id, net_id=wired["id"], port_id=nowhere), 400,
            "Must not input both network_id and port_id")  # fmt: skip
    refused(attach(plane, server_id, fixed_ips=[{"ip_address": "10.30.0.9"}]), 400,
            "Must input network_id when request IP address")  # fmt: skip
    refused(
        attach(plane, server_id, net_id="nope"),
        400,
        "Invalid input for field/attribute net_id. Value: nope. 'nope' is not a 'uuid'",
    )
    assert attach(plane, server_id, tag="x").status_code == 400  # tags from 2.49
    assert attach(plane, server_id, colour="red").status_code == 400
    refused(attach(plane, server_id, net_id=nowhere), 404, f"Network {nowhere} could not be found.")
    refused(attach(plane, server_id, port_id=nowhere), 404,
            f"Port id {nowhere} could not be found.")  # fmt: skip
    refused(attach(plane, server_id), 400, AMBIGUOUS)
    theirs = neutron.port(other["id"], plane.api.project_id("admin"))
    refused(attach(plane, server_id, port_id=theirs["id"]), 400,
            f"Port {theirs['id']} not usable for instance {server_id}.")  # fmt: skip
    (own,) = neutron.ports(device_id=server_id)
    refused(attach(plane, server_id, port_id=own["id"]), 409, f"Port {own['id']} is still in use.")
    taken = attach(plane, server_id, net_id=other["id"],
                   fixed_ips=[{"ip_address": own["fixed_ips"][0]["ip_address"]}])  # fmt: skip
    assert taken.status_code == 400  # not that network's address
    outside = attach(plane, server_id, net_id=wired["id"], fixed_ips=[{"ip_address": "1.2.3.4"}])
    assert outside.status_code == 400, outside.get_data(True)
    again = attach(plane, server_id, net_id=wired["id"],
                   fixed_ips=[{"ip_address": own["fixed_ips"][0]["ip_address"]}])  # fmt: skip
    assert again.status_code == 409, again.get_data(True)
    refused(plane.api.call("DELETE", f"{path}/{nowhere}"), 404, f"Port {nowhere} is not attached")
    refused(plane.api.call("GET", f"{path}/{nowhere}"), 404,
            f"Port id {nowhere} could not be found.")  # fmt: skip
    refused(plane.api.call("GET", f"{path}/{theirs['id']}", user="admin"), 404,
            f"Instance {server_id} does not have a port with id {theirs['id']}")  # fmt: skip
    assert plane.api.call("GET", f"/servers/{nowhere}/os-interface").status_code == 404
    assert len(neutron.ports(device_id=server_id)) == 1


def test_server_states_and_locks(plane: Plane, wired: dict[str, Any]) -> None:
    server_id = server_on(plane, wired)
    assert plane.api.action(server_id, {"suspend": None}).status_code == 202
    plane.api.wait(server_id, "SUSPENDED")
    refused(attach(plane, server_id), 409,
            f"Instance {server_id} in vm_state suspended. Cannot attach_interface while the "
            "instance is in this state.")  # fmt: skip
    assert plane.api.action(server_id, {"resume": None}).status_code == 202
    plane.api.wait(server_id, "ACTIVE")
    assert plane.api.action(server_id, {"os-stop": None}).status_code == 202
    plane.api.wait(server_id, "SHUTOFF")
    check(interfaces21.get_create_interfaces, attach(plane, server_id))  # stopped: fine
    assert plane.api.action(server_id, {"lock": None}).status_code == 202
    refused(attach(plane, server_id), 409, f"Instance {server_id} is locked")
    port_id = plane.instance(server_id).network_info[0].port_id
    response = plane.api.call("DELETE", f"/servers/{server_id}/os-interface/{port_id}")
    refused(response, 409, f"Instance {server_id} is locked")


def test_auto_without_any_network_is_refused(plane: Plane, neutron: Neutron) -> None:
    neutron.wire("host-a")
    plane.add_host("host-a")
    server_id = plane.api.boot()
    refused(attach(plane, server_id), 400, "No specific network was requested and none are "
            f"available for project '{project(plane)}'.")  # fmt: skip
    assert listed(plane, server_id) == []


class _Hotplug(FakeDriver):
    """Like the libvirt driver: wants to hear that a new NIC's port is up."""

    wants_vif_plugged_events = True

    def __init__(self, host: str) -> None:
        super().__init__(host, host)
        self.attached = threading.Event()

    def attach_interface(self, instance: Instance, vif: VIF) -> None:
        super().attach_interface(instance, vif)
        self.attached.set()


def test_an_attach_answers_once_the_port_is_up(plane: Plane, neutron: Neutron) -> None:
    neutron.wire("host-a")
    driver = _Hotplug("host-a")
    plane.add_driver(driver)
    server_id = server_on(plane, neutron.network("private", project(plane), "10.30.0.0/24"))
    (first,) = neutron.ports(device_id=server_id)
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(attach, plane, server_id)
        assert driver.attached.wait(20)
        time.sleep(0.3)
        assert not pending.done()  # the guest has the NIC, its port is not up yet
        (new,) = [p for p in neutron.ports(device_id=server_id) if p["id"] != first["id"]]
        neutron.plugged("host-a", [new["id"]])
        body = check(interfaces21.get_create_interfaces, pending.result(timeout=20))
    assert body["interfaceAttachment"] == {**body["interfaceAttachment"], "port_id": new["id"],
                                           "port_state": "ACTIVE"}  # fmt: skip


def test_a_port_that_never_comes_up_undoes_the_attach(plane: Plane, neutron: Neutron) -> None:
    plane.conf.set_override("vif_plugging_timeout", 1)
    neutron.wire("host-a")
    driver = _Hotplug("host-a")
    plane.add_driver(driver)
    network = neutron.network("private", project(plane), "10.30.0.0/24")
    server_id = server_on(plane, network)
    (first,) = neutron.ports(device_id=server_id)
    assert attach(plane, server_id).status_code == 500
    assert [p["id"] for p in neutron.ports(network_id=network["id"])] == [first["id"]]
    assert driver.guests[server_id].vifs == [first["id"]]
    assert [vif.port_id for vif in plane.instance(server_id).network_info] == [first["id"]]
