"""The network client's requests and Neutron's refusals as our errors."""

from __future__ import annotations

import pytest

from saphira import exception
from saphira.clients.fake import FakeTransport
from saphira.clients.network import (
    NetworkClient,
    NetworkConflict,
    NetworkNotFound,
    NetworkRefused,
    NetworkUnauthorized,
)


def _client(wire: FakeTransport) -> NetworkClient:
    return NetworkClient("http://n.test/", lambda: "svc", transport=wire)


def test_filters_in_neutrons_query_form() -> None:
    wire = FakeTransport()
    wire.reply("GET", "/v2.0/ports", json={"ports": [{"id": "p1"}]})
    ports = _client(wire).list_ports(device_id="vm", admin_state_up=True, fixed_ips=["a", "b"])
    assert ports == [{"id": "p1"}]
    assert wire.paths() == [
        "GET /v2.0/ports?device_id=vm&admin_state_up=true&fixed_ips=a&fixed_ips=b"
    ]


def test_a_users_client_vouched_for_by_the_service_shares_the_wire() -> None:
    wire = FakeTransport()
    wire.reply("POST", "/v2.0/ports", status=201, json={"port": {"id": "p1"}})
    service = _client(wire)
    user = service.as_user("users-token")
    assert user.create_port({"network_id": "n1"}) == {"id": "p1"}
    assert user.transport is service.transport
    sent = wire.sent[0]
    assert sent.headers["X-Auth-Token"] == "users-token"
    assert sent.headers["X-Service-Token"] == "svc"
    assert sent.json == {"port": {"network_id": "n1"}}
    assert "X-Service-Token" not in service.headers()


def test_callers_clients_share_one_pool_per_service() -> None:
    first = NetworkClient.for_caller("http://n.test/", "t1")
    second = NetworkClient.for_caller("http://n.test", "t2")
    assert first.transport is second.transport
    assert NetworkClient.for_caller("http://other.test", "t1").transport is not first.transport
    assert (first.headers()["X-Auth-Token"], second.headers()["X-Auth-Token"]) == ("t1", "t2")


def test_neutrons_fault_keeps_its_message_type_and_status() -> None:
    wire = FakeTransport()
    fault = {"NeutronError": {"type": "IpAddressInUse", "message": "in use", "detail": ""}}
    wire.reply("PUT", "/v2.0/ports/p1", status=409, json=fault)
    with pytest.raises(NetworkConflict) as raised:
        _client(wire).update_port("p1", {"name": "x"})
    assert isinstance(raised.value, exception.Conflict)
    assert (raised.value.message, raised.value.neutron_type, raised.value.code) == (
        "in use", "IpAddressInUse", 409,
    )  # fmt: skip


def test_the_token_middlewares_fault_and_a_bare_body() -> None:
    wire = FakeTransport()
    keystone = {"error": {"code": 401, "message": "The request you have made requires"}}
    wire.reply("GET", "/v2.0/networks/n1", status=401, json=keystone)
    wire.reply("DELETE", "/v2.0/ports/p1", status=404, content=b"")
    wire.reply("GET", "/v2.0/subnets", status=500, content=b"boom")
    with pytest.raises(NetworkUnauthorized, match="requires"):
        _client(wire).show_network("n1")
    with pytest.raises(NetworkNotFound, match="network service answered 404"):
        _client(wire).delete_port("p1")
    with pytest.raises(NetworkRefused, match="boom") as raised:
        _client(wire).list_subnets()
    assert raised.value.code == 500


def test_an_unreachable_service_is_unavailable() -> None:
    wire = FakeTransport()
    wire.refuse_connection("POST", "/v2.0/security-groups")
    with pytest.raises(exception.ServiceUnavailable, match=r"^network service unreachable"):
        _client(wire).create_security_group({"name": "g"})
