"""What ports a server gets for each kind of request, and that failures leave none behind."""

from __future__ import annotations

import json
from typing import Any

import pytest

from saphira.compute import network_errors as errors
from saphira.compute.network import Networking
from saphira.compute.vifs import network_info
from saphira.context import RequestContext
from saphira.objects import Flavor, Instance
from tests.unit.compute.fake_network import FakeNetworkClient

FLAVOR = Flavor("1", "tiny", 1, 512, 1)
USER = RequestContext(user_id="u1", project_id="p1", roles=("member",), auth_token="user-token")


def _instance(**sysmeta: Any) -> Instance:
    return Instance(
        "vm-1", "p1", "u1", FLAVOR,
        system_metadata={key: json.dumps(value) for key, value in sysmeta.items()},
    )  # fmt: skip


@pytest.fixture
def client() -> FakeNetworkClient:
    return FakeNetworkClient()


@pytest.fixture
def networking(client: FakeNetworkClient) -> Networking:
    return Networking(client, "h1", default_zone="nova")


def test_none_gives_no_nic(client: FakeNetworkClient, networking: Networking) -> None:
    client.add_network("a")
    done = networking.allocate(_instance(), "none", USER)
    assert done.ports == [] and client.ports == {}


def test_auto_without_networks_builds_without_nic(networking: Networking) -> None:
    assert networking.allocate(_instance(), "auto", USER).ports == []


def test_auto_takes_the_one_usable_network(
    client: FakeNetworkClient, networking: Networking
) -> None:
    client.add_network("other-project", project_id="p2")
    client.add_network("public", project_id="admin", **{"router:external": True, "shared": True})
    shared = client.add_network("shared", project_id="admin", shared=True)
    done = networking.allocate(_instance(), "auto", USER)
    (port,) = done.ports
    assert port["network_id"] == shared["id"] and port["project_id"] == "p1"
    assert (port["device_id"], port["device_owner"], port["binding:host_id"]) == (
        "vm-1", "compute:nova", "h1",
    )  # fmt: skip
    assert done.created == {port["id"]}


def test_auto_with_two_networks_is_ambiguous(
    client: FakeNetworkClient, networking: Networking
) -> None:
    client.add_network("a")
    client.add_network("b", project_id="admin", shared=True)
    with pytest.raises(errors.NetworkAmbiguous) as caught:
        networking.allocate(_instance(), "auto", USER)
    assert caught.value.message == (
        "Multiple possible networks found, use a Network ID to be more specific."
    )
    assert client.ports == {}


def test_networks_by_id_with_a_fixed_ip_and_the_zone(
    client: FakeNetworkClient, networking: Networking
) -> None:
    a, b = client.add_network("a"), client.add_network("b")
    instance = _instance()
    instance.availability_zone = "az1"
    asked = [{"uuid": a["id"], "fixed_ip": "10.0.0.99"}, {"uuid": b["id"]}]
    done = networking.allocate(instance, asked, USER)
    assert [p["network_id"] for p in done.ports] == [a["id"], b["id"]]
    assert done.ports[0]["fixed_ips"][0]["ip_address"] == "10.0.0.99"
    assert {p["device_owner"] for p in done.ports} == {"compute:az1"}


def test_ports_are_made_as_the_user_and_only_bound_as_the_service(
    client: FakeNetworkClient, networking: Networking
) -> None:
    network = client.add_network("a")
    networking.allocate(_instance(), [{"uuid": network["id"], "fixed_ip": "10.0.0.9"}], USER)
    assert client.writes == [
        ("user-token", "create_port", ("device_id", "fixed_ips", "network_id", "project_id")),
        ("service", "update_port", ("binding:host_id", "device_owner")),
    ]


def test_without_the_users_token_nothing_is_made(
    client: FakeNetworkClient, networking: Networking
) -> None:
    network = client.add_network("a")
    anonymous = RequestContext(user_id="u1", project_id="p1", roles=("member",))
    with pytest.raises(errors.NetworkAllocationFailed, match="no user token"):
        networking.allocate(_instance(), [{"uuid": network["id"]}], anonymous)
    assert client.ports == {} and client.writes == []


def test_a_user_port_is_taken_over_and_kept(
    client: FakeNetworkClient, networking: Networking
) -> None:
    network = client.add_network("a", subnets=[])  # the user's port needs no subnet check
    mine = client.add_port(network["id"], name="mine")
    done = networking.allocate(_instance(), [{"port": mine["id"]}], USER)
    assert done.created == set()
    assert client.ports[mine["id"]]["device_id"] == "vm-1"
    assert client.writes == [
        ("user-token", "update_port", ("device_id",)),
        ("service", "update_port", ("binding:host_id", "device_owner")),
    ]
    (vif,) = done.vifs()
    assert vif.preserve_on_delete and vif.port_id == mine["id"]


@pytest.mark.parametrize(
    ("attrs", "error"),
    [({"project_id": "p2"}, errors.PortNotFound), ({"device_id": "vm-9"}, errors.PortInUse)],
)
def test_ports_that_are_not_the_users_to_give(
    client: FakeNetworkClient, networking: Networking, attrs: dict[str, str], error: type
) -> None:
    network = client.add_network("a")
    port = client.add_port(network["id"], **attrs)
    with pytest.raises(error, match=port["id"]):
        networking.allocate(_instance(), [{"port": port["id"]}], USER)
    assert client.ports[port["id"]]["device_id"] == attrs.get("device_id", "")


@pytest.mark.parametrize(
    ("attrs", "error"),
    [
        ({"project_id": "p2"}, errors.NetworkNotFound),
        ({"project_id": "p2", "router:external": True}, errors.ExternalNetworkAttachForbidden),
        ({"subnets": []}, errors.NetworkRequiresSubnet),
    ],
)
def test_networks_the_project_cannot_use(
    client: FakeNetworkClient, networking: Networking, attrs: dict[str, Any], error: type
) -> None:
    first = client.add_network("fine")
    bad = client.add_network("bad", **attrs)
    with pytest.raises(error, match=bad["id"]):
        networking.allocate(_instance(), [{"uuid": first["id"]}, {"uuid": bad["id"]}], USER)
    assert client.ports == {}


def test_an_unknown_network_aborts(networking: Networking) -> None:
    with pytest.raises(errors.NetworkNotFound, match="Network nope could not be found"):
        networking.allocate(_instance(), [{"uuid": "nope"}], USER)


def test_binding_failure_undoes_everything(client: FakeNetworkClient) -> None:
    network = client.add_network("a")
    mine = client.add_port(network["id"])
    networking = Networking(client, "unwired-host")
    with pytest.raises(errors.PortBindingFailed, match="unwired-host"):
        networking.allocate(_instance(), [{"uuid": network["id"]}, {"port": mine["id"]}], USER)
    assert list(client.ports) == [mine["id"]]  # the new port deleted, the user's kept...
    assert client.ports[mine["id"]]["device_id"] == ""  # ...and unbound
    assert client.ports[mine["id"]]["binding:vif_type"] == "unbound"


def test_a_refusal_mid_way_deletes_what_was_made(
    client: FakeNetworkClient, networking: Networking
) -> None:
    network = client.add_network("a")
    client.used_ips.add("10.0.0.50")
    asked = [{"uuid": network["id"]}, {"uuid": network["id"], "fixed_ip": "10.0.0.50"}]
    with pytest.raises(errors.NetworkAllocationFailed, match=r"10\.0\.0\.50 already allocated"):
        networking.allocate(_instance(), asked, USER)
    assert client.ports == {}


def test_security_groups_by_name(client: FakeNetworkClient, networking: Networking) -> None:
    network = client.add_network("a")
    client.groups += [{"id": "sg-web", "name": "web", "project_id": "p1"},
                      {"id": "sg-x", "name": "web", "project_id": "p2"}]  # fmt: skip
    asked = [{"uuid": network["id"]}]
    done = networking.allocate(_instance(security_groups=["web"]), asked, USER)
    assert done.ports[0]["security_groups"] == ["sg-web"]
    by_id = networking.allocate(_instance(security_groups=["sg-web"]), asked, USER)
    assert by_id.ports[0]["security_groups"] == ["sg-web"]
    with pytest.raises(errors.SecurityGroupNotFound, match="nope not found for project p1"):
        networking.allocate(_instance(security_groups=["nope"]), asked, USER)
    with pytest.raises(errors.SecurityGroupNotFound, match="sg-x not found for project p1"):
        networking.allocate(_instance(security_groups=["sg-x"]), asked, USER)
    assert "security_groups" not in networking.allocate(_instance(), "auto", USER).ports[0]


def test_nics_from_the_bound_ports(client: FakeNetworkClient, networking: Networking) -> None:
    network = client.add_network("a", mtu=1400)
    done = networking.allocate(_instance(), [{"uuid": network["id"]}], USER)
    (vif,) = done.vifs()
    port = done.ports[0]
    assert (vif.network_name, vif.mtu, vif.vif_type, vif.bridge) == (
        "a", 1400, "ovs", "br-physnet1",
    )  # fmt: skip
    assert vif.fixed_ips == [port["fixed_ips"][0]["ip_address"]] and not vif.active
    instance = _instance()
    instance.network_info = done.vifs()
    (nic,) = network_info(instance)
    assert (nic.id, nic.address, nic.vif_type, nic.bridge, nic.mtu) == (
        port["id"], port["mac_address"], "ovs", "br-physnet1", 1400,
    )  # fmt: skip


def test_delete_keeps_the_users_ports(client: FakeNetworkClient, networking: Networking) -> None:
    network = client.add_network("a")
    mine = client.add_port(network["id"])
    instance = _instance()
    done = networking.allocate(instance, [{"uuid": network["id"]}, {"port": mine["id"]}], USER)
    instance.network_info = done.vifs()
    networking.deallocate(instance)
    assert list(client.ports) == [mine["id"]]
    assert client.ports[mine["id"]]["device_id"] == ""
