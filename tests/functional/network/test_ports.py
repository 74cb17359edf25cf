"""Ports: addresses, MACs, groups, address pairs, bindings, and who may do what."""

from __future__ import annotations

from typing import Any

from saphira.netsvc.agents import AgentRegistry
from saphira.objects.network import LINUXBRIDGE_AGENT, OVS_AGENT
from tests.functional.network.conftest import Neutron


def _addresses(port: dict[str, Any]) -> list[str]:
    return [ip["ip_address"] for ip in port["fixed_ips"]]


def _port_count(neutron: Neutron) -> int:
    return len(neutron.ok("GET", "/v2.0/ports")["ports"])


def test_addresses_from_the_first_subnet_with_room(neutron: Neutron) -> None:
    network = neutron.network()
    small = neutron.subnet(network["id"], "10.0.0.0/30")
    other = neutron.subnet(network["id"], "10.1.0.0/24")
    first = neutron.port(network["id"])
    assert first["fixed_ips"] == [{"subnet_id": small["id"], "ip_address": "10.0.0.2"}]
    second = neutron.port(network["id"])
    assert second["fixed_ips"][0]["subnet_id"] == other["id"]
    assert first["mac_address"].startswith("fa:16:3e:")
    assert first["status"] == "DOWN" and first["binding:vif_type"] == "unbound"


def test_exhausted_pool_and_bad_addresses_create_nothing(neutron: Neutron) -> None:
    network = neutron.network()
    subnet = neutron.subnet(network["id"], "10.0.0.0/30")
    neutron.port(network["id"])
    before = _port_count(neutron)
    body = {"port": {"network_id": network["id"]}}
    assert neutron.fault("POST", "/v2.0/ports", 409, json=body) == "IpAddressGenerationFailure"

    def fixed(status: int, **ip: str) -> str:
        asked = {"port": {"network_id": network["id"], "fixed_ips": [ip]}}
        return neutron.fault("POST", "/v2.0/ports", status, json=asked)

    assert fixed(400, subnet_id=subnet["id"], ip_address="10.9.0.5") == "InvalidIpForSubnet"
    assert fixed(400, subnet_id=subnet["id"], ip_address="10.0.0.3") == "InvalidIpForSubnet"
    assert fixed(400, ip_address="10.9.0.5") == "InvalidIpForNetwork"
    assert fixed(409, subnet_id=subnet["id"], ip_address="10.0.0.2") == "IpAddressAlreadyAllocated"
    assert fixed(404, subnet_id="00000000-0000-0000-0000-000000000000") == "SubnetNotFound"
    assert fixed(400, ip_address="banana") == "HTTPBadRequest"
    assert _port_count(neutron) == before


def test_chosen_address_and_mac(neutron: Neutron) -> None:
    network = neutron.network()
    subnet = neutron.subnet(network["id"], "10.0.0.0/24")
    asked = [{"subnet_id": subnet["id"], "ip_address": "10.0.0.77"}]
    port = neutron.port(network["id"], fixed_ips=asked, mac_address="FA:16:3E:00:00:01")
    assert _addresses(port) == ["10.0.0.77"] and port["mac_address"] == "fa:16:3e:00:00:01"
    again = {"port": {"network_id": network["id"], "mac_address": "fa:16:3e:00:00:01"}}
    assert neutron.fault("POST", "/v2.0/ports", 409, json=again) == "MacAddressInUse"
    bad = {"port": {"network_id": network["id"], "mac_address": "01:00:5e:00:00:01"}}
    assert neutron.fault("POST", "/v2.0/ports", 400, json=bad) == "HTTPBadRequest"
    other = neutron.network()
    assert neutron.port(other["id"], mac_address="fa:16:3e:00:00:01")["fixed_ips"] == []
    found = neutron.ok("GET", "/v2.0/ports?fixed_ips=ip_address%3D10.0.0.77")["ports"]
    assert [p["id"] for p in found] == [port["id"]]


def test_update_keeps_releases_and_adds_addresses(neutron: Neutron) -> None:
    network = neutron.network()
    subnet = neutron.subnet(network["id"], "10.0.0.0/24")
    keep = {"subnet_id": subnet["id"], "ip_address": "10.0.0.10"}
    drop = {"subnet_id": subnet["id"], "ip_address": "10.0.0.12"}
    port = neutron.port(network["id"], fixed_ips=[keep, drop, {"subnet_id": subnet["id"]}])
    assert len(port["fixed_ips"]) == 3 and _addresses(port)[:2] == ["10.0.0.10", "10.0.0.12"]
    path = f"/v2.0/ports/{port['id']}"
    body = {"port": {"fixed_ips": [keep, {"ip_address": "10.0.0.11"}]}}
    updated = neutron.ok("PUT", path, json=body)["port"]
    assert _addresses(updated) == ["10.0.0.10", "10.0.0.11"]
    assert _addresses(neutron.port(network["id"], fixed_ips=[drop])) == ["10.0.0.12"]
    taken = {"port": {"fixed_ips": [{"ip_address": "10.0.0.12"}]}}
    assert neutron.fault("PUT", path, 409, json=taken) == "IpAddressAlreadyAllocated"
    assert _addresses(neutron.ok("GET", path)["port"]) == ["10.0.0.10", "10.0.0.11"]


def test_projects_and_networks(neutron: Neutron) -> None:
    private = neutron.network("demo")
    neutron.subnet(private["id"], "10.0.0.0/24", user="demo")
    body = {"port": {"network_id": private["id"]}}
    assert neutron.fault("POST", "/v2.0/ports", 404, "alt", json=body) == "NetworkNotFound"
    shared = neutron.network(shared=True)
    subnet = neutron.subnet(shared["id"], "10.5.0.0/24")
    theirs = neutron.port(shared["id"], "alt")
    assert theirs["project_id"] == neutron.projects["alt"]
    assert "binding:vif_type" not in theirs and "binding:vnic_type" in theirs
    chosen = [{"subnet_id": subnet["id"], "ip_address": "10.5.0.9"}]
    pick = {"port": {"network_id": shared["id"], "fixed_ips": chosen}}
    assert neutron.fault("POST", "/v2.0/ports", 403, "alt", json=pick) == "PolicyNotAuthorized"
    assert [p["id"] for p in neutron.ok("GET", "/v2.0/ports", user="demo")["ports"]] == []
    path = f"/v2.0/ports/{theirs['id']}"
    assert neutron.fault("GET", path, 404, "demo") == "PortNotFound"
    assert neutron.ok("GET", path)["port"]["id"] == theirs["id"]  # the network's owner (admin)


def test_security_groups_and_port_security(neutron: Neutron) -> None:
    network = neutron.network("demo")
    default = neutron.port(network["id"], "demo")["security_groups"]
    groups = neutron.ok("GET", "/v2.0/security-groups?name=default", user="demo")
    assert default == [groups["security_groups"][0]["id"]]
    alien = neutron.create("security_group", "alt", name="theirs")
    body = {"port": {"network_id": network["id"], "security_groups": [alien["id"]]}}
    assert neutron.fault("POST", "/v2.0/ports", 404, "demo", json=body) == "SecurityGroupNotFound"
    open_port = neutron.port(network["id"], "demo", port_security_enabled=False)
    assert open_port["security_groups"] == []
    both = {"port": {"network_id": network["id"], "port_security_enabled": False,
                     "security_groups": default}}  # fmt: skip
    assert neutron.fault("POST", "/v2.0/ports", 400, "demo", json=both) == (
        "PortSecurityAndIPRequiredForSecurityGroups"
    )
    guarded = neutron.port(network["id"], "demo")
    path = f"/v2.0/ports/{guarded['id']}"
    off: dict[str, dict[str, object]] = {"port": {"port_security_enabled": False}}
    assert neutron.fault("PUT", path, 409, "demo", json=off) == "PortSecurityPortHasSecurityGroup"
    off["port"]["security_groups"] = []
    assert neutron.ok("PUT", path, user="demo", json=off)["port"]["port_security_enabled"] is False


def test_allowed_address_pairs(neutron: Neutron) -> None:
    network = neutron.network()
    pairs = [
        {"ip_address": "10.0.0.0/24"},
        {"ip_address": "10.1.0.5", "mac_address": "fa:16:3e:aa:bb:cc"},
    ]
    port = neutron.port(network["id"], allowed_address_pairs=pairs)
    assert port["allowed_address_pairs"] == [
        {"ip_address": "10.0.0.0/24", "mac_address": port["mac_address"]},
        {"ip_address": "10.1.0.5", "mac_address": "fa:16:3e:aa:bb:cc"},
    ]
    body = {"port": {"network_id": network["id"], "port_security_enabled": False,
                     "allowed_address_pairs": pairs}}  # fmt: skip
    assert neutron.fault("POST", "/v2.0/ports", 409, json=body) == (
        "AddressPairAndPortSecurityRequired"
    )


def test_binding_follows_the_hosts_agent(neutron: Neutron) -> None:
    theirs = neutron.network("demo")
    body = {"port": {"network_id": theirs["id"], "binding:host_id": "h1"}}
    assert neutron.fault("POST", "/v2.0/ports", 403, "demo", json=body) == "PolicyNotAuthorized"
    network = neutron.network()
    failed = neutron.port(network["id"], **{"binding:host_id": "h1"})
    assert failed["binding:vif_type"] == "binding_failed"
    registry = AgentRegistry(neutron.backend.db, neutron.backend.settings)
    mappings = {"bridge_mappings": {"physnet1": "br-physnet1"}, "datapath_type": "netdev"}
    assert registry.report_state(OVS_AGENT, "saphira-ovs-agent", "h1", mappings, "N/A") == "new"
    bound = neutron.port(network["id"], **{"binding:host_id": "h1"})
    assert bound["binding:vif_type"] == "ovs"
    assert bound["binding:vif_details"] == {
        "port_filter": True, "connectivity": "l2", "bridge_name": "br-physnet1",
        "datapath_type": "netdev", "ovs_hybrid_plug": False,
    }  # fmt: skip
    registry.report_state(LINUXBRIDGE_AGENT, "saphira-lb-agent", "h2", mappings, "N/A")
    moved = neutron.ok(
        "PUT", f"/v2.0/ports/{bound['id']}", json={"port": {"binding:host_id": "h2"}}
    )["port"]
    assert moved["binding:vif_type"] == "bridge"
    assert moved["binding:vif_details"]["bridge_name"] == f"brq{network['id'][:11]}"
    unbound = neutron.ok(
        "PUT", f"/v2.0/ports/{bound['id']}", json={"port": {"binding:host_id": ""}}
    )["port"]
    assert unbound["binding:vif_type"] == "unbound"


def test_bulk_ports_cannot_share_an_address(neutron: Neutron) -> None:
    network = neutron.network()
    subnet = neutron.subnet(network["id"], "10.0.0.0/24")
    same = {"network_id": network["id"],
            "fixed_ips": [{"subnet_id": subnet["id"], "ip_address": "10.0.0.5"}]}  # fmt: skip
    body = {"ports": [same, same]}
    assert neutron.fault("POST", "/v2.0/ports", 409, json=body) == "IpAddressAlreadyAllocated"
    assert _port_count(neutron) == 0
