"""Proxy -> metadata agent -> metadata API on loopback and a unix socket (no namespace).

The proxy's listener is what a namespace's would be, bound to 127.0.0.1:
the network id comes from the listener, the address from the connection,
whatever headers the client sends.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from saphira.network.metadata.agent import MetadataAgent, origin_form
from saphira.network.metadata.ns_proxy import Listener, UnixConnection
from saphira.network.metadata.resolver import InstancePort
from saphira.network.metadata.upstream import MetadataApi
from tests.metadata_stub import SECRET, StubApi, stub_metadata_api

NETWORK = "net-proxy-a"


class Ports:
    """Instances by (network, address), as the network service would answer."""

    def __init__(self, known: dict[tuple[str, str], InstancePort]) -> None:
        self.known = known

    def resolve(self, network_id: str, address: str) -> InstancePort | None:
        return self.known.get((network_id, address))


class Chain:
    def __init__(self, stub: StubApi, socket: Path, ports: Ports, secret: str) -> None:
        self.stub = stub
        self.agent = MetadataAgent(socket, ports, MetadataApi(stub.host, stub.port, secret))
        self.agent.start()
        self.listener = Listener("127.0.0.1", 0)
        self.listener.network_id, self.listener.socket_path = NETWORK, str(socket)
        self.listener.server_bind()
        self.listener.server_activate()
        threading.Thread(target=self.listener.serve_forever, daemon=True).start()

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.listener.server_address[1])
        try:
            connection.request("GET", path, headers=headers or {})
            reply = connection.getresponse()
            return reply.status, reply.read()
        finally:
            connection.close()

    def close(self) -> None:
        self.listener.shutdown()
        self.listener.server_close()
        self.agent.stop()


def make_chain(
    tmp_path: Path, known: dict[tuple[str, str], InstancePort], secret: str
) -> Iterator[Chain]:
    with stub_metadata_api() as stub:
        chain = Chain(stub, tmp_path / "metadata_proxy", Ports(known), secret)
        try:
            yield chain
        finally:
            chain.close()


@pytest.fixture
def chain(tmp_path: Path) -> Iterator[Chain]:
    known = {
        (NETWORK, "127.0.0.1"): InstancePort("vm-mine", "project-a"),
        ("net-other", "127.0.0.1"): InstancePort("vm-theirs", "project-b"),
    }
    yield from make_chain(tmp_path, known, SECRET)


def test_the_api_gets_the_instance_of_the_listeners_network_and_the_peer(chain: Chain) -> None:
    status, body = chain.get("/openstack/latest/meta_data.json?x=1")
    assert status == 200, body
    assert json.loads(body) == {
        "uuid": "vm-mine",
        "project_id": "project-a",
        "path": "/openstack/latest/meta_data.json?x=1",
    }
    seen = chain.stub.seen[-1].headers
    assert seen["x-forwarded-for"] == "127.0.0.1"
    assert seen["x-tenant-id"] == "project-a"


def test_forged_headers_change_nothing(chain: Chain) -> None:
    forged = {
        "X-Neutron-Network-ID": "net-other",
        "X-Forwarded-For": "10.0.0.99",
        "X-Instance-ID": "vm-theirs",
        "X-Instance-ID-Signature": "0" * 64,
        "X-Tenant-ID": "project-b",
        "X-Saphira-Network-ID": "net-other",
    }
    status, body = chain.get("/latest/meta-data/instance-id", forged)
    assert status == 200, body
    assert json.loads(body)["uuid"] == "vm-mine"
    seen = chain.stub.seen[-1].headers
    assert seen["x-forwarded-for"] == "127.0.0.1"
    assert seen["x-instance-id"] == "vm-mine"
    assert seen["x-tenant-id"] == "project-a"
    assert not any(name.startswith(("x-neutron", "x-saphira")) for name in seen)


def test_an_address_without_a_port_gets_404_and_the_api_is_not_asked(tmp_path: Path) -> None:
    for chain in make_chain(tmp_path, {}, SECRET):
        status, _ = chain.get("/openstack/latest/meta_data.json")
        assert status == 404
        assert chain.stub.seen == []


def test_a_wrong_secret_is_refused_by_the_api_and_the_guest_gets_403(tmp_path: Path) -> None:
    known = {(NETWORK, "127.0.0.1"): InstancePort("vm-mine", "project-a")}
    for chain in make_chain(tmp_path, known, "not-the-secret"):
        status, _ = chain.get("/openstack/latest/meta_data.json")
        assert status == 403


def test_only_an_origin_form_path_is_forwarded(chain: Chain) -> None:
    status, _ = chain.get("http://169.254.169.254/latest/")
    assert status == 400
    assert chain.stub.seen == []
    assert not origin_form("//evil/latest/")  # http.server already makes it /evil/latest/


def test_the_agents_socket_is_for_its_own_user_only(chain: Chain, tmp_path: Path) -> None:
    assert (tmp_path / "metadata_proxy").stat().st_mode & 0o777 == 0o600


def test_the_proxy_waits_for_a_busy_agent_instead_of_failing(tmp_path: Path) -> None:
    """A unix connect with a timeout fails at once (EAGAIN) on a full backlog, which
    turned most of a boot storm into 502s; the proxy's connect waits for the accept."""
    path = str(tmp_path / "busy")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listening:
        listening.bind(path)
        listening.listen(0)
        waiting = fill_backlog(path)
        accepted: list[socket.socket] = []

        def accept_later() -> None:
            time.sleep(0.3)
            listening.settimeout(5)
            for _ in range(len(waiting) + 1):
                accepted.append(listening.accept()[0])

        acceptor = threading.Thread(target=accept_later, daemon=True)
        acceptor.start()
        connection = UnixConnection(path, timeout=5)
        try:
            connection.connect()
        finally:
            acceptor.join(timeout=10)
            connection.close()
            for sock in waiting + accepted:
                sock.close()
        assert len(accepted) == len(waiting) + 1


def fill_backlog(path: str) -> list[socket.socket]:
    filled: list[socket.socket] = []
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.connect(path)
        except BlockingIOError:
            sock.close()
            return filled
        filled.append(sock)


def test_connections_beyond_the_limit_are_closed_at_once(tmp_path: Path) -> None:
    """A guest holding idle connections gets no more threads than the proxy allows."""
    listener = Listener("127.0.0.1", 0, max_connections=3)
    listener.network_id, listener.socket_path = NETWORK, str(tmp_path / "none")
    listener.server_bind()
    listener.server_activate()
    threading.Thread(target=listener.serve_forever, daemon=True).start()
    address = ("127.0.0.1", listener.server_address[1])
    held = [socket.create_connection(address, timeout=5) for _ in range(3)]
    try:
        time.sleep(0.3)  # the three are accepted and hold their threads
        with socket.create_connection(address, timeout=5) as extra:
            assert extra.recv(1) == b""  # closed by the proxy, not left waiting
    finally:
        for sock in held:
            sock.close()
        listener.shutdown()
        listener.server_close()
