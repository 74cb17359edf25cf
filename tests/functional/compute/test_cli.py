"""The real `openstack` CLI against the compute API of `saphira up`."""

from __future__ import annotations

from tests.functional.cloud import Cloud


def test_flavor_commands(cloud: Cloud) -> None:
    made = cloud.openstack("flavor", "create", "--ram", "256", "--vcpus", "1", "--disk", "1",
                           "--private", "cli.tiny", "-f", "json")  # fmt: skip
    assert made["name"] == "cli.tiny" and made["os-flavor-access:is_public"] is False
    cloud.openstack("flavor", "set", "--property", "hw:cpu_policy=shared", "cli.tiny")
    cloud.openstack("flavor", "set", "--project", "demo", "cli.tiny")
    shown = cloud.openstack("flavor", "show", "cli.tiny", "-f", "json")
    assert shown["properties"] == {"hw:cpu_policy": "shared"}
    names = {f["Name"] for f in cloud.openstack("flavor", "list", "--all", "-f", "json")}
    assert "cli.tiny" in names
    cloud.openstack("flavor", "delete", "cli.tiny")
    missing = cloud.openstack("flavor", "show", "cli.tiny", check=False)
    assert missing.returncode != 0


def test_keypair_quota_limits_zone_group_commands(cloud: Cloud) -> None:
    made = cloud.openstack("keypair", "create", "clikey", cloud="demo")
    assert "PRIVATE KEY" in made
    assert "clikey" in {k["Name"] for k in cloud.openstack("keypair", "list", "-f", "json",
                                                             cloud="demo")}  # fmt: skip
    cloud.openstack("keypair", "delete", "clikey", cloud="demo")
    cloud.openstack("quota", "set", "--instances", "5", "demo")  # compute only: no network API yet
    shown = cloud.openstack("quota", "show", "--compute", "demo", "-f", "json")
    assert {"Resource": "instances", "Limit": 5} in shown or shown.get("instances") == 5
    limits = cloud.openstack("limits", "show", "--absolute", "-f", "json", cloud="demo")
    assert {"Name": "instances", "Value": 5} in limits
    zones = cloud.openstack("availability", "zone", "list", "--compute", "-f", "json")
    assert any(z["Zone Name"] == "nova" for z in zones)
    group = cloud.openstack("server", "group", "create", "--policy", "anti-affinity", "grp",
                            "-f", "json", cloud="demo")  # fmt: skip
    assert group["policy"] == "anti-affinity"
    listed = cloud.openstack("server", "group", "list", "-f", "json", cloud="demo")
    assert group["id"] in {g["ID"] for g in listed}
    cloud.openstack("server", "group", "delete", "grp", cloud="demo")
    services = cloud.openstack("compute", "service", "list", "-f", "json")
    assert "nova-compute" in {s["Binary"] for s in services}
    denied = cloud.openstack("compute", "service", "list", cloud="demo", check=False)
    assert denied.returncode != 0 and "403" in denied.stderr
