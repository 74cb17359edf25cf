"""Networks: shapes, provider attributes and their policy, visibility, update and delete."""

from __future__ import annotations

from tests.functional.network.conftest import Neutron

NETWORK_KEYS = {
    "id", "name", "status", "admin_state_up", "shared", "router:external", "mtu",
    "port_security_enabled", "subnets", "provider:network_type", "provider:physical_network",
    "provider:segmentation_id", "project_id", "tenant_id", "description", "created_at",
    "updated_at", "revision_number",
}  # fmt: skip
PROVIDER = {"provider:network_type", "provider:physical_network", "provider:segmentation_id"}


def test_versions_need_no_token_and_extensions_are_listed(neutron: Neutron) -> None:
    root = neutron.client.get("/")
    assert root.status_code == 200
    (version,) = root.get_json()["versions"]
    assert version["id"] == "v2.0" and version["status"] == "CURRENT"
    assert version["links"][0]["href"].endswith("/v2.0/")
    assert neutron.client.get("/v2.0/networks").status_code == 401
    aliases = {e["alias"] for e in neutron.ok("GET", "/v2.0/extensions")["extensions"]}
    assert {
        "provider",
        "security-group",
        "quotas",
        "agent",
        "binding",
        "external-net",
        "allowed-address-pairs",
        "port-security",
        "net-mtu",
        "project-id",
    } <= aliases
    assert "subnet_allocation" not in aliases and "router" not in aliases
    shown = neutron.ok("GET", "/v2.0/extensions/binding")["extension"]
    assert shown["name"] == "Port Binding"
    assert neutron.fault("GET", "/v2.0/extensions/nope", 404) == "HTTPNotFound"
    names = {r["collection"] for r in neutron.ok("GET", "/v2.0")["resources"]}
    assert {"networks", "subnets", "ports"} <= names


def test_project_network_gets_a_vlan_and_hides_provider_details(neutron: Neutron) -> None:
    mine = neutron.network("demo", name="mine")
    assert set(mine) == NETWORK_KEYS - PROVIDER
    assert (mine["status"], mine["mtu"], mine["shared"]) == ("ACTIVE", 1500, False)
    assert mine["project_id"] == mine["tenant_id"] == neutron.projects["demo"]
    admin_view = neutron.ok("GET", f"/v2.0/networks/{mine['id']}")["network"]
    assert admin_view["provider:network_type"] == "vlan"
    assert admin_view["provider:physical_network"] == "physnet1"
    assert 1000 <= admin_view["provider:segmentation_id"] <= 1999


def test_provider_attributes_are_admin_only_and_unique(neutron: Neutron) -> None:
    flat = {"provider:network_type": "flat", "provider:physical_network": "physnet1"}
    body = {"network": {"name": "x", **flat}}
    assert neutron.fault("POST", "/v2.0/networks", 403, "demo", json=body) == "PolicyNotAuthorized"
    made = neutron.network("admin", **flat)
    assert made["provider:segmentation_id"] is None
    assert neutron.fault("POST", "/v2.0/networks", 409, json=body) == "FlatNetworkInUse"
    vlan = {"provider:network_type": "vlan", "provider:physical_network": "physnet1",
            "provider:segmentation_id": 42}  # fmt: skip
    assert neutron.network("admin", **vlan)["provider:segmentation_id"] == 42
    again = {"network": {"name": "y", **vlan}}
    assert neutron.fault("POST", "/v2.0/networks", 409, json=again) == "VlanIdInUse"
    for bad in (
        {"provider:network_type": "vxlan"},
        {"provider:network_type": "flat", "provider:physical_network": "physnet1",
         "provider:segmentation_id": 5},
        {"provider:network_type": "vlan", "provider:physical_network": "nowhere"},
        {"provider:network_type": "vlan", "provider:physical_network": "physnet1",
         "provider:segmentation_id": 4095},
    ):  # fmt: skip
        assert neutron.fault("POST", "/v2.0/networks", 400, json={"network": bad}) == "InvalidInput"
    update = {"network": {"provider:segmentation_id": 43}}
    assert neutron.fault("PUT", f"/v2.0/networks/{made['id']}", 400, json=update) == "InvalidInput"


def test_visibility_shared_and_private(neutron: Neutron) -> None:
    private = neutron.network("demo", name="private")
    shared = neutron.network(name="shared", shared=True)
    external = neutron.network("admin", name="ext", **{"router:external": True})
    seen = {n["id"] for n in neutron.ok("GET", "/v2.0/networks", user="alt")["networks"]}
    assert seen == {shared["id"], external["id"]}
    assert neutron.fault("GET", f"/v2.0/networks/{private['id']}", 404, "alt") == "NetworkNotFound"
    rename = {"network": {"name": "mine now"}}
    path = f"/v2.0/networks/{shared['id']}"
    assert neutron.fault("PUT", path, 403, "alt", json=rename) == "PolicyNotAuthorized"
    assert neutron.fault("DELETE", path, 403, "alt") == "PolicyNotAuthorized"
    share = {"network": {"shared": True}}
    mine = f"/v2.0/networks/{private['id']}"
    assert neutron.fault("PUT", mine, 403, "demo", json=share) == "PolicyNotAuthorized"
    admin_sees = {n["id"] for n in neutron.ok("GET", "/v2.0/networks")["networks"]}
    assert {private["id"], shared["id"], external["id"]} <= admin_sees


def test_update_bumps_revision_and_checks_mtu(neutron: Neutron) -> None:
    made = neutron.network("demo")
    path = f"/v2.0/networks/{made['id']}"
    body = {
        "network": {"name": "renamed", "description": "d", "mtu": 1400, "admin_state_up": False}
    }
    updated = neutron.ok("PUT", path, user="demo", json=body)["network"]
    assert (updated["name"], updated["mtu"], updated["admin_state_up"]) == ("renamed", 1400, False)
    assert updated["revision_number"] == made["revision_number"] + 1
    too_big = {"network": {"mtu": 9000}}
    assert neutron.fault("PUT", path, 400, "demo", json=too_big) == "InvalidInput"
    assert neutron.fault("PUT", path, 400, "demo", json={"network": {"status": "DOWN"}}) == (
        "HTTPBadRequest"
    )
    assert neutron.fault("PUT", path, 400, "demo", json={"network": {"color": "red"}}) == (
        "HTTPBadRequest"
    )


def test_delete_refuses_ports_and_takes_subnets(neutron: Neutron) -> None:
    made = neutron.network()
    subnet = neutron.subnet(made["id"], "10.1.0.0/24")
    port = neutron.port(made["id"])
    path = f"/v2.0/networks/{made['id']}"
    assert neutron.fault("DELETE", path, 409) == "NetworkInUse"
    neutron.ok("DELETE", f"/v2.0/ports/{port['id']}", 204)
    neutron.port(made["id"], device_owner="network:dhcp")
    neutron.ok("DELETE", path, 204)
    assert neutron.fault("GET", f"/v2.0/subnets/{subnet['id']}", 404) == "SubnetNotFound"
    assert neutron.ok("GET", "/v2.0/ports")["ports"] == []
    assert neutron.fault("DELETE", path, 404) == "NetworkNotFound"


def test_bulk_create_is_all_or_nothing(neutron: Neutron) -> None:
    body = {"networks": [{"name": "b1"}, {"name": "b2"}]}
    made = neutron.ok("POST", "/v2.0/networks", 201, json=body)["networks"]
    assert [n["name"] for n in made] == ["b1", "b2"]
    bad = {"networks": [{"name": "b3"}, {"name": "b4", "mtu": 99999}]}
    assert neutron.fault("POST", "/v2.0/networks", 400, json=bad) == "InvalidInput"
    names = {n["name"] for n in neutron.ok("GET", "/v2.0/networks")["networks"]}
    assert names == {"b1", "b2"}
