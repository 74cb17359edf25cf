"""Nothing the operator needs is hidden: an unmapped compute host is named in
os-services, os-hypervisors and the "No valid host" reason; the failed
build's action event carries the per-host reasons from 2.84; a hypervisor's
uptime comes from its compute host over RPC."""

from __future__ import annotations

import time
from typing import Any

from tempest.lib.api_schema.response.compute.v2_1 import hypervisors as hyper21
from tempest.lib.api_schema.response.compute.v2_1 import services as services21
from tempest.lib.api_schema.response.compute.v2_11 import services as services211
from tempest.lib.api_schema.response.compute.v2_51 import servers as servers251
from tempest.lib.api_schema.response.compute.v2_53 import hypervisors as hyper253
from tempest.lib.api_schema.response.compute.v2_53 import services as services253
from tempest.lib.api_schema.response.compute.v2_84 import servers as servers284
from tempest.lib.api_schema.response.compute.v2_100 import servers as servers2100

from saphira.api.compute.hosts import UNMAPPED
from saphira.compute.service import ComputeService
from saphira.db import cells
from saphira.virt.fake import FakeDriver
from saphira.virt.fake.driver import UPTIME
from tests.functional.compute.servers_harness import check as _check
from tests.functional.engine.conftest import Plane
from tests.wsgi import JsonResponse

# Every schema tempest has for GET /os-services, at the versions that pick it.
SERVICE_SCHEMAS = (
    ("2.1", services21), ("2.10", services21), ("2.11", services211),
    ("2.52", services211), ("2.53", services253), ("2.100", services253),
)  # fmt: skip


SCHEDULE_EVENT = "conductor_schedule_and_build_instances"
MEMBERS_READ = "No valid host was found. There are not enough hosts available: not enough DISK_GB."


def _unmapped_host(plane: Plane, host: str) -> None:
    """A compute agent that registered, but that nobody mapped to a cell yet."""
    driver = FakeDriver.fleet([host], plane.faults)[host]
    service = ComputeService(plane.conf, host, [driver], plane.transport, plane.placement)
    service.start()
    plane.computes[host], plane.drivers[host] = service, driver
    deadline = time.monotonic() + 20
    while not _services(plane, "2.53").get(host):
        assert time.monotonic() < deadline, f"{host} never registered its service"
        time.sleep(0.05)


def _services(plane: Plane, version: str) -> dict[str, dict[str, Any]]:
    listed = plane.api.ok("GET", "/os-services?binary=nova-compute", user="admin",
                          version=version)["services"]  # fmt: skip
    return {service["host"]: service for service in listed}


def check(schema: dict[str, Any], response: JsonResponse) -> Any:
    """tempest's validator, which lets error statuses through unchecked."""
    assert response.status_code == 200, response.get_data(True)
    return _check(schema, response)


def _json(response: JsonResponse) -> Any:
    assert response.status_code == 200, response.get_data(True)
    return response.get_json()


def test_an_unmapped_host_is_named_in_services_hypervisors_and_the_fault(plane: Plane) -> None:
    plane.add_host("mapped", resources=(8, 16384, 1))  # m1.small wants 2 GB of disk
    _unmapped_host(plane, "lonely")
    for version, schema in SERVICE_SCHEMAS:
        response = plane.api.call("GET", "/os-services", user="admin", version=version)
        listed = {s["host"]: s for s in check(schema.list_services, response)["services"]}
        assert listed["lonely"]["disabled_reason"] == UNMAPPED, (version, listed["lonely"])
        assert (listed["lonely"]["status"], listed["lonely"]["state"]) == ("enabled", "up")
        assert listed["mapped"]["disabled_reason"] is None
    for version, schema in (("2.1", hyper21), ("2.53", hyper253)):
        response = plane.api.call("GET", "/os-hypervisors/detail", user="admin", version=version)
        found = check(schema.list_hypervisors_detail, response)["hypervisors"]
        reasons = {h["service"]["host"]: h["service"]["disabled_reason"] for h in found}
        assert reasons == {"mapped": None, "lonely": UNMAPPED}

    # A disabled unmapped host keeps the operator's reason and adds ours.
    lonely = _services(plane, "2.53")["lonely"]["id"]
    body = {"status": "disabled", "disabled_reason": "maintenance"}
    updated = plane.api.ok("PUT", f"/os-services/{lonely}", body, user="admin", version="2.53")
    assert updated["service"]["disabled_reason"] == f"maintenance; {UNMAPPED}"
    assert updated["service"]["status"] == "disabled"
    enabled = {"status": "enabled"}
    plane.api.ok("PUT", f"/os-services/{lonely}", enabled, user="admin", version="2.53")

    response = plane.api.create("nowhere", flavor="2")
    assert response.status_code == 202, response.get_data(True)
    server_id = str(response.get_json()["server"]["id"])
    failed = plane.api.wait(server_id, "ERROR", user="admin")
    details = failed["fault"]["details"]
    assert "lonely: not mapped to a cell" in details and "mapped: placement: DISK_GB" in details

    cells.discover_hosts(plane.conf)
    assert _services(plane, "2.53")["lonely"]["disabled_reason"] is None


def test_the_failed_schedule_event_carries_the_per_host_reasons(plane: Plane) -> None:
    plane.add_host("host-a", resources=(8, 16384, 1))  # m1.small wants 2 GB of disk
    response = plane.api.create("too-big", flavor="2")
    assert response.status_code == 202, response.get_data(True)
    server_id = str(response.get_json()["server"]["id"])
    fault = plane.api.wait(server_id, "ERROR")["fault"]
    assert fault["message"] == MEMBERS_READ, fault
    admins_read = plane.api.wait(server_id, "ERROR", user="admin")["fault"]
    assert "host-a: placement: DISK_GB" in admins_read["details"], admins_read
    request_id = next(a["request_id"] for a in plane.api.actions(server_id)
                      if a["action"] == "create")  # fmt: skip
    path = f"/servers/{server_id}/os-instance-actions/{request_id}"
    for user in ("demo", "admin"):
        for version, schema in (("2.84", servers284), ("2.100", servers2100)):
            response = plane.api.call("GET", path, user=user, version=version)
            events = check(schema.show_instance_action, response)["instanceAction"]["events"]
            event = next(e for e in events if e["event"] == SCHEDULE_EVENT)
            assert event["result"] == "Error"
            assert event["details"] == fault["message"]
            assert ("traceback" in event) == (user == "admin")
            if user == "admin":
                assert "host-a: placement: DISK_GB" in event["traceback"], event
        before = _json(plane.api.call("GET", path, user=user, version="2.83"))
        check(servers251.show_instance_action, plane.api.call("GET", path, user=user,
                                                               version="2.51"))  # fmt: skip
        listed = before["instanceAction"]["events"]
        assert listed and all("details" not in e for e in listed), listed


def test_hypervisor_uptime_comes_from_its_host(plane: Plane) -> None:
    plane.add_host("host-a")
    _unmapped_host(plane, "lonely")
    found = plane.api.ok("GET", "/os-hypervisors", user="admin", version="2.53")["hypervisors"]
    ids = {h["hypervisor_hostname"]: h["id"] for h in found}
    for version in ("2.1", "2.53", "2.87"):  # integer ids before 2.53, UUIDs from it
        listed = plane.api.ok("GET", "/os-hypervisors", user="admin", version=version)
        ident = next(h["id"] for h in listed["hypervisors"] if h["hypervisor_hostname"] == "host-a")
        response = plane.api.call("GET", f"/os-hypervisors/{ident}/uptime", user="admin",
                                  version=version)  # fmt: skip
        shown = check(hyper253.get_hypervisor_uptime, response)["hypervisor"]
        assert shown["uptime"] == UPTIME and shown["hypervisor_hostname"] == "host-a"
    at_288 = plane.api.ok("GET", f"/os-hypervisors/{ids['host-a']}", user="admin", version="2.88")
    assert at_288["hypervisor"]["uptime"] == UPTIME
    lonely = plane.api.call("GET", f"/os-hypervisors/{ids['lonely']}/uptime", user="admin",
                            version="2.53")  # fmt: skip
    assert lonely.status_code == 404 and "not mapped" in lonely.get_data(True)
    shown = plane.api.ok("GET", f"/os-hypervisors/{ids['lonely']}", user="admin", version="2.88")
    assert shown["hypervisor"]["uptime"] is None
    denied = plane.api.call("GET", f"/os-hypervisors/{ids['host-a']}/uptime", version="2.53")
    assert denied.status_code == 403


def test_a_members_no_valid_host_fault_names_no_host_an_admins_does(plane: Plane) -> None:
    plane.add_host("secret-host-1", resources=(8, 16384, 1))  # m1.small wants 2 GB of disk
    plane.add_host("secret-host-2", resources=(8, 16384, 1))
    response = plane.api.create("nowhere", flavor="2")
    assert response.status_code == 202, response.get_data(True)
    server_id = str(response.get_json()["server"]["id"])
    member = plane.api.wait(server_id, "ERROR")["fault"]
    assert "secret-host" not in str(member) and "details" not in member, member
    assert member["message"] == MEMBERS_READ
    admin = plane.api.wait(server_id, "ERROR", user="admin")["fault"]
    assert admin["message"] == MEMBERS_READ
    for host in ("secret-host-1", "secret-host-2"):
        assert f"{host}: placement: DISK_GB" in admin["details"], admin
