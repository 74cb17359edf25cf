"""Flavors, extra specs, access, key pairs, quotas, limits, zones, server groups,
services and hypervisors: every response checked against tempest's schemas."""

from __future__ import annotations

import uuid

import pytest
from tempest.lib.api_schema.response.compute.v2_1 import availability_zone as az21
from tempest.lib.api_schema.response.compute.v2_1 import flavors as flavors21
from tempest.lib.api_schema.response.compute.v2_1 import flavors_access, flavors_extra_specs
from tempest.lib.api_schema.response.compute.v2_1 import keypairs as keypairs21
from tempest.lib.api_schema.response.compute.v2_1 import limits as limits21
from tempest.lib.api_schema.response.compute.v2_1 import quotas as quotas21
from tempest.lib.api_schema.response.compute.v2_1 import server_groups as groups21
from tempest.lib.api_schema.response.compute.v2_1 import services as services21
from tempest.lib.api_schema.response.compute.v2_2 import keypairs as keypairs22
from tempest.lib.api_schema.response.compute.v2_13 import server_groups as groups213
from tempest.lib.api_schema.response.compute.v2_53 import hypervisors as hyper253
from tempest.lib.api_schema.response.compute.v2_53 import services as services253
from tempest.lib.api_schema.response.compute.v2_55 import flavors as flavors255
from tempest.lib.api_schema.response.compute.v2_57 import limits as limits257
from tempest.lib.api_schema.response.compute.v2_57 import quotas as quotas257
from tempest.lib.api_schema.response.compute.v2_61 import flavors as flavors261
from tempest.lib.api_schema.response.compute.v2_64 import server_groups as groups264

from tests.functional.compute.conftest import Api, check


def _flavor(admin: Api, version: str = "2.1", **extra: object) -> dict[str, object]:
    body = {"name": f"f-{uuid.uuid4().hex[:8]}", "ram": 512, "vcpus": 1, "disk": 1, **extra}
    schema = flavors255 if version >= "2.55" else flavors21
    made = check(schema.create_update_get_flavor_details,
                 admin.call("POST", "/flavors", version, body={"flavor": body}))  # fmt: skip
    return dict(made["flavor"])


def test_flavor_lifecycle_across_versions(admin: Api, demo: Api) -> None:
    flavor = _flavor(admin, "2.55", description="small")
    fid = str(flavor["id"])
    assert flavor["description"] == "small" and flavor["swap"] == ""
    check(flavors21.list_flavors, admin.call("GET", "/flavors"))
    check(flavors21.list_flavors_details, admin.call("GET", "/flavors/detail"))
    check(flavors255.list_flavors, admin.call("GET", "/flavors", "2.55"))
    check(flavors261.list_flavors_details, admin.call("GET", "/flavors/detail", "2.61"))
    updated = check(flavors255.create_update_get_flavor_details,
                    admin.call("PUT", f"/flavors/{fid}", "2.55",
                               body={"flavor": {"description": "tiny"}}))  # fmt: skip
    assert updated["flavor"]["description"] == "tiny"
    shown = check(flavors21.create_update_get_flavor_details, demo.call("GET", f"/flavors/{fid}"))
    assert shown["flavor"]["ram"] == 512
    assert demo.call("POST", "/flavors", body={"flavor": {"name": "x", "ram": 1, "vcpus": 1,
                     "disk": 0}}).status_code == 403  # fmt: skip
    dup = admin.call("POST", "/flavors", body={"flavor": {"name": flavor["name"], "ram": 1,
                     "vcpus": 1, "disk": 0}})  # fmt: skip
    assert dup.status_code == 409 and "conflictingRequest" in dup.json()
    check(flavors21.delete_flavor, admin.call("DELETE", f"/flavors/{fid}"))
    assert admin.call("GET", f"/flavors/{fid}").status_code == 404


def test_flavor_filters_and_paging(admin: Api) -> None:
    made = [_flavor(admin, ram=ram) for ram in (128, 4096, 8192)]
    big = admin.call("GET", "/flavors/detail?minRam=4096").json()["flavors"]
    assert {f["id"] for f in big} >= {made[1]["id"], made[2]["id"]}
    assert made[0]["id"] not in {f["id"] for f in big}
    page = check(flavors21.list_flavors, admin.call("GET", "/flavors?limit=1"))
    assert len(page["flavors"]) == 1 and page["flavors_links"][0]["rel"] == "next"
    marker = page["flavors"][0]["id"]
    rest = admin.call("GET", f"/flavors?marker={marker}").json()["flavors"]
    assert marker not in {f["id"] for f in rest}
    assert admin.call("GET", "/flavors?marker=nope").status_code == 400
    assert admin.call("GET", "/flavors?limit=-1").status_code == 400


def test_bad_flavor_bodies_are_400(admin: Api) -> None:
    bodies: list[dict[str, object]] = [
        {"flavor": {"name": "x"}},
        {"flavor": {"name": "x", "ram": -1, "vcpus": 1, "disk": 0}},
        {"nope": {}},
        {"flavor": {"name": " x", "ram": 1, "vcpus": 1, "disk": 0}},
    ]
    for body in bodies:
        response = admin.call("POST", "/flavors", body=body)
        assert response.status_code == 400, body
        assert "badRequest" in response.json()


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("ram", "624507335161830450019", "memory_mb must be <= 2147483647"),
        ("ram", "0", "memory_mb must be >= 1"),
        ("vcpus", "2147483648", "vcpus must be <= 2147483647"),
        ("disk", "99999999999999999999", "root_gb must be <= 2147483647"),
    ],
)
def test_a_flavor_size_given_as_digits_is_bounded(
    admin: Api, field: str, value: str, words: str
) -> None:
    """Found by the fuzzer: the schema bounds numbers but not digit strings, so a
    20-digit "ram" reached the database (500) and "0" made a flavor of no memory."""
    flavor = {"name": f"digits-{field}-{value[:4]}", "ram": 64, "vcpus": 1, "disk": 0}
    response = admin.call("POST", "/flavors", body={"flavor": {**flavor, field: value}})
    assert response.status_code == 400, response.text
    assert words in response.json()["badRequest"]["message"]


def test_extra_specs_and_access(admin: Api, demo: Api) -> None:
    fid = str(_flavor(admin, "2.1", **{"os-flavor-access:is_public": False})["id"])
    assert demo.call("GET", f"/flavors/{fid}").status_code == 404
    specs = f"/flavors/{fid}/os-extra_specs"
    check(
        flavors_extra_specs.set_get_flavor_extra_specs,
        admin.call("POST", specs, body={"extra_specs": {"hw:cpu_policy": "dedicated"}}),
    )
    got = check(flavors_extra_specs.set_get_flavor_extra_specs_key,
                admin.call("GET", f"{specs}/hw:cpu_policy"))  # fmt: skip
    assert got == {"hw:cpu_policy": "dedicated"}
    check(
        flavors_extra_specs.set_get_flavor_extra_specs_key,
        admin.call("PUT", f"{specs}/k", body={"k": "v"}),
    )
    assert admin.call("PUT", f"{specs}/k", body={"other": "v"}).status_code == 400
    check(flavors_extra_specs.unset_flavor_extra_specs, admin.call("DELETE", f"{specs}/k"))
    assert admin.call("GET", f"{specs}/k").status_code == 404
    action = f"/flavors/{fid}/action"
    added = check(
        flavors_access.add_remove_list_flavor_access,
        admin.call("POST", action, body={"addTenantAccess": {"tenant": demo.project_id}}),
    )
    assert added["flavor_access"] == [{"flavor_id": fid, "tenant_id": demo.project_id}]
    assert (
        admin.call(
            "POST", action, body={"addTenantAccess": {"tenant": demo.project_id}}
        ).status_code
        == 409
    )
    assert demo.call("GET", f"/flavors/{fid}").status_code == 200
    check(
        flavors_access.add_remove_list_flavor_access,
        admin.call("GET", f"/flavors/{fid}/os-flavor-access"),
    )
    check(
        flavors_access.add_remove_list_flavor_access,
        admin.call("POST", action, body={"removeTenantAccess": {"tenant": demo.project_id}}),
    )
    assert demo.call("GET", f"/flavors/{fid}").status_code == 404
    assert demo.call("POST", specs, body={"extra_specs": {"a": "b"}}).status_code == 403


def test_keypairs(demo: Api, admin: Api) -> None:
    made = check(
        keypairs21.create_keypair,
        demo.call("POST", "/os-keypairs", body={"keypair": {"name": "k1"}}),
    )
    assert made["keypair"]["private_key"].startswith("-----BEGIN RSA PRIVATE KEY-----")
    imported = check(keypairs22.create_keypair, demo.call("POST", "/os-keypairs", "2.2", body={
        "keypair": {"name": "k2", "public_key": made["keypair"]["public_key"]}}))  # fmt: skip
    assert imported["keypair"]["fingerprint"] == made["keypair"]["fingerprint"]
    check(keypairs22.create_keypair, demo.call("POST", "/os-keypairs", "2.2",
          body={"keypair": {"name": "k3", "type": "x509"}}))  # fmt: skip
    check(keypairs21.list_keypairs, demo.call("GET", "/os-keypairs"))
    check(keypairs22.list_keypairs, demo.call("GET", "/os-keypairs", "2.35"))
    page = demo.call("GET", "/os-keypairs?limit=1", "2.35").json()  # Nova adds keypairs_links
    assert len(page["keypairs"]) == 1 and page["keypairs_links"][0]["rel"] == "next"
    check(keypairs22.get_keypair, demo.call("GET", "/os-keypairs/k2", "2.2"))
    assert demo.call("POST", "/os-keypairs", body={"keypair": {"name": "k1"}}).status_code == 409
    bad = demo.call("POST", "/os-keypairs", body={"keypair": {"name": "b", "public_key": "x"}})
    assert bad.status_code == 400
    assert admin.call("GET", "/os-keypairs/k1").status_code == 404
    other = admin.call("GET", f"/os-keypairs/k1?user_id={demo.user_id}", "2.10")
    assert other.status_code == 200
    assert demo.call("GET", f"/os-keypairs?user_id={admin.user_id}", "2.10").status_code == 403
    check(keypairs22.delete_keypair, demo.call("DELETE", "/os-keypairs/k2", "2.2"))
    check(keypairs21.delete_keypair, demo.call("DELETE", "/os-keypairs/k3"))


def test_quotas_and_limits(admin: Api, demo: Api) -> None:
    project = demo.project_id
    check(quotas21.get_quota_set, demo.call("GET", f"/os-quota-sets/{project}"))
    check(quotas257.get_quota_set, demo.call("GET", f"/os-quota-sets/{project}", "2.57"))
    check(quotas21.get_quota_set_details, demo.call("GET", f"/os-quota-sets/{project}/detail"))
    check(quotas21.get_quota_set, demo.call("GET", f"/os-quota-sets/{project}/defaults"))
    updated = check(quotas257.update_quota_set, admin.call("PUT", f"/os-quota-sets/{project}",
                    "2.57", body={"quota_set": {"instances": 7, "cores": 9}}))  # fmt: skip
    assert updated["quota_set"]["instances"] == 7
    assert (
        demo.call(
            "PUT", f"/os-quota-sets/{project}", body={"quota_set": {"instances": 70}}
        ).status_code
        == 403
    )
    assert (
        admin.call(
            "PUT", f"/os-quota-sets/{project}", "2.57", body={"quota_set": {"injected_files": 1}}
        ).status_code
        == 400
    )
    limits = check(limits21.get_limit, demo.call("GET", "/limits"))
    assert limits["limits"]["absolute"]["maxTotalInstances"] == 7
    check(limits257.get_limit, demo.call("GET", "/limits", "2.57"))
    check(quotas21.delete_quota, admin.call("DELETE", f"/os-quota-sets/{project}"))
    assert demo.call("GET", "/limits").json()["limits"]["absolute"]["maxTotalInstances"] == 10


@pytest.mark.parametrize("path", ["/os-quota-sets/{project}", "/os-quota-class-sets/default"])
@pytest.mark.parametrize(
    ("value", "words"),
    [("-639421286244051305069", "ram must be >= -1"), ("2147483648", "ram must be <= 2147483647")],
)
def test_a_quota_given_as_digits_is_bounded(
    admin: Api, demo: Api, path: str, value: str, words: str
) -> None:
    """Found by the fuzzer: a quota of 36 digits as a string reached the database (500)."""
    key = "quota_class_set" if "class" in path else "quota_set"
    target = path.format(project=demo.project_id)
    response = admin.call("PUT", target, "2.57", body={key: {"ram": value}})
    assert response.status_code == 400, response.text
    assert words in response.json()["badRequest"]["message"]


def test_zones_services_hypervisors(admin: Api, demo: Api) -> None:
    zones = check(az21.list_availability_zone_list, demo.call("GET", "/os-availability-zone"))
    assert zones["availabilityZoneInfo"][0]["zoneName"] == "nova"
    check(
        az21.list_availability_zone_list_detail, admin.call("GET", "/os-availability-zone/detail")
    )
    check(services21.list_services, admin.call("GET", "/os-services"))
    check(services253.list_services, admin.call("GET", "/os-services", "2.53"))
    assert demo.call("GET", "/os-services").status_code == 403
    check(hyper253.list_search_hypervisors, admin.call("GET", "/os-hypervisors", "2.53"))
    check(hyper253.list_hypervisors_detail, admin.call("GET", "/os-hypervisors/detail", "2.53"))
    missing = admin.call("PUT", f"/os-services/{uuid.uuid4()}", "2.53", body={"status": "enabled"})
    assert missing.status_code == 404


def test_server_groups(demo: Api, admin: Api) -> None:
    made = check(groups21.create_show_server_group, demo.call("POST", "/os-server-groups",
                 body={"server_group": {"name": "g", "policies": ["affinity"]}}))  # fmt: skip
    gid = made["server_group"]["id"]
    check(groups213.create_show_server_group, demo.call("GET", f"/os-server-groups/{gid}", "2.13"))
    new = check(groups264.create_show_server_group, demo.call("POST", "/os-server-groups",
                "2.64", body={"server_group": {"name": "g2", "policy": "anti-affinity",
                "rules": {"max_server_per_host": 2}}}))  # fmt: skip
    assert new["server_group"]["rules"] == {"max_server_per_host": 2}
    assert demo.call("POST", "/os-server-groups", body={"server_group": {
        "name": "g3", "policies": ["soft-affinity"]}}).status_code == 400  # fmt: skip
    listed = check(groups264.list_server_groups, demo.call("GET", "/os-server-groups", "2.64"))
    assert {g["id"] for g in listed["server_groups"]} >= {gid, new["server_group"]["id"]}
    check(groups21.delete_server_group, demo.call("DELETE", f"/os-server-groups/{gid}"))
    assert demo.call("GET", f"/os-server-groups/{gid}").status_code == 404
