"""What tempest found missing: flavor create's booleans and numeric ids, the
legacy network quotas before 2.36, os-quota-class-sets, the control plane's
own service records, 2.75's strict server-list queries, hypervisor servers
and uptime."""

from __future__ import annotations

import uuid
from typing import Any

from tempest.lib.api_schema.response.compute.v2_1 import flavors as flavors21
from tempest.lib.api_schema.response.compute.v2_1 import hypervisors as hyper21
from tempest.lib.api_schema.response.compute.v2_1 import quota_classes as classes21
from tempest.lib.api_schema.response.compute.v2_1 import quotas as quotas21
from tempest.lib.api_schema.response.compute.v2_1 import services as services21
from tempest.lib.api_schema.response.compute.v2_50 import quota_classes as classes250
from tempest.lib.api_schema.response.compute.v2_57 import quota_classes as classes257

from saphira.virt.fake.driver import UPTIME
from tests.functional.compute.conftest import Api, check

LEGACY = ("fixed_ips", "floating_ips", "security_groups", "security_group_rules")


def _flavor(admin: Api, **fields: Any) -> Any:
    body = {"flavor": {"name": f"gap-{uuid.uuid4().hex[:8]}", "ram": 64, "vcpus": 1, "disk": 0,
                       **fields}}  # fmt: skip
    return admin.call("POST", "/flavors", body=body)


def test_flavor_create_takes_boolean_spellings_and_numeric_ids(admin: Api) -> None:
    number = 700000 + uuid.uuid4().int % 100000
    private = check(
        flavors21.create_update_get_flavor_details,
        _flavor(admin, id=number, **{"os-flavor-access:is_public": "False"}),
    )
    assert private["flavor"]["id"] == str(number)
    assert private["flavor"]["os-flavor-access:is_public"] is False
    public = check(flavors21.create_update_get_flavor_details,
                   _flavor(admin, **{"os-flavor-access:is_public": "yes"}))  # fmt: skip
    assert public["flavor"]["os-flavor-access:is_public"] is True
    assert _flavor(admin, **{"os-flavor-access:is_public": "maybe"}).status_code == 400
    assert _flavor(admin, **{"os-flavor-access:is_public": 1}).status_code == 400
    for made in (private, public):
        assert admin.call("DELETE", f"/flavors/{made['flavor']['id']}").status_code == 202


def test_legacy_network_quotas_are_settable_before_2_36(admin: Api) -> None:
    project = uuid.uuid4().hex
    path = f"/os-quota-sets/{project}"
    done = check(
        quotas21.update_quota_set,
        admin.call("PUT", path, body={"quota_set": {"floating_ips": 23, "force": True}}),
    )
    assert done["quota_set"]["floating_ips"] == 23
    assert check(quotas21.get_quota_set, admin.call("GET", path))["quota_set"]["floating_ips"] == 23
    refused = admin.call("PUT", path, body={"quota_set": {"networks": 3}})
    assert refused.status_code == 400
    assert "networks quota has been removed" in refused.text
    later = admin.call("PUT", path, "2.36", body={"quota_set": {"floating_ips": 5}})
    assert later.status_code == 400
    assert admin.call("DELETE", path).status_code == 202


def _raise_all(values: dict[str, int]) -> dict[str, int]:
    return {name: value + 100 for name, value in values.items() if name != "id"}


def test_quota_class_sets_follow_nova_microversions(admin: Api, demo: Api) -> None:
    shown = check(classes21.get_quota_class_set, admin.call("GET", "/os-quota-class-sets/default"))
    original = {k: v for k, v in shown["quota_class_set"].items() if k != "id"}
    assert shown["quota_class_set"]["id"] == "default"
    assert set(LEGACY) <= set(original) and "server_groups" not in original
    raised = _raise_all(shown["quota_class_set"])
    try:
        updated = check(classes21.update_quota_class_set, admin.call(
            "PUT", "/os-quota-class-sets/default", body={"quota_class_set": raised}))  # fmt: skip
        assert updated["quota_class_set"] == raised
        defaults = admin.call("GET", f"/os-quota-sets/{admin.project_id}/defaults").json()
        assert defaults["quota_set"]["instances"] == raised["instances"]
        at_250 = check(
            classes250.get_quota_class_set,
            admin.call("GET", "/os-quota-class-sets/default", "2.50"),
        )["quota_class_set"]
        assert "server_groups" in at_250 and not set(LEGACY) & set(at_250)
        check(classes257.get_quota_class_set, admin.call("GET", "/os-quota-class-sets/x", "2.57"))
        gone = admin.call("PUT", "/os-quota-class-sets/default", "2.50",
                          body={"quota_class_set": {"floating_ips": 1}})  # fmt: skip
        assert gone.status_code == 400
        assert demo.call("GET", "/os-quota-class-sets/default").status_code == 403
    finally:
        restored = admin.call("PUT", "/os-quota-class-sets/default",
                              body={"quota_class_set": original})  # fmt: skip
        assert restored.status_code == 200


def test_control_plane_services_are_listed_up(admin: Api) -> None:
    services = check(services21.list_services, admin.call("GET", "/os-services"))["services"]
    states = {service["binary"]: service["state"] for service in services}
    assert {"nova-scheduler", "nova-conductor", "nova-compute"} <= set(states)
    assert set(states.values()) == {"up"}, services
    zones = {service["binary"]: service["zone"] for service in services}
    assert zones["nova-scheduler"] == "internal"


def test_unknown_server_list_parameters_are_400_from_2_75(demo: Api) -> None:
    for path in ("/servers", "/servers/detail"):
        assert demo.call("GET", f"{path}?frobnicate=1", "2.74").status_code == 200
        assert demo.call("GET", f"{path}?frobnicate=1", "2.75").status_code == 400
        assert demo.call("GET", f"{path}?sort_key=vcpus", "2.75").status_code == 400
        assert demo.call("GET", f"{path}?name=x&limit=1", "2.75").status_code == 200


def test_hypervisor_servers_and_uptime(admin: Api, demo: Api) -> None:
    nodes = admin.call("GET", "/os-hypervisors").json()["hypervisors"]
    name, ident = nodes[0]["hypervisor_hostname"], nodes[0]["id"]
    check(hyper21.get_hypervisors_servers, admin.call("GET", f"/os-hypervisors/{name}/servers"))
    assert admin.call("GET", "/os-hypervisors/no-such-node/servers").status_code == 404
    assert demo.call("GET", f"/os-hypervisors/{name}/servers").status_code == 403
    assert admin.call("GET", f"/os-hypervisors/{name}/servers", "2.53").status_code == 404
    uptime = check(hyper21.get_hypervisor_uptime,
                   admin.call("GET", f"/os-hypervisors/{ident}/uptime"))  # fmt: skip
    assert uptime["hypervisor"]["uptime"] == UPTIME  # the fake host answered over RPC
    assert uptime["hypervisor"]["hypervisor_hostname"] == name
    assert admin.call("GET", f"/os-hypervisors/{ident}/uptime", "2.88").status_code == 404
    assert admin.call("GET", "/os-hypervisors/999999/uptime").status_code == 404
    assert demo.call("GET", f"/os-hypervisors/{ident}/uptime").status_code == 403
