"""The compute host's console answer: a typed endpoint over RPC 1.4, refused typed
errors for what the driver cannot give, and the fake guest's own VNC server."""

from __future__ import annotations

import itertools
import socket
from collections.abc import Iterator

import pytest
from oslo_config import cfg

from saphira import conf as saphira_conf
from saphira.clients.placement import PlacementClient
from saphira.compute.manager import ComputeManager
from saphira.context import RequestContext
from saphira.exception import ConsoleTypeUnavailable, RPCPinnedToOldVersion
from saphira.objects import ConsoleEndpoint, ConsoleType, Flavor, Instance
from saphira.rpc.rpcapi.compute import ComputeAPI
from saphira.rpc.rpcapi.conductor import ConductorAPI
from saphira.rpc.server import Server, start_server, stop_all
from saphira.rpc.transport import get_rpc_transport
from saphira.virt.fake import FakeDriver
from saphira.virt.types import ImageMeta
from tests import rfb_client

CTXT = RequestContext(user_id="u1", project_id="p1", roles=("member",))
INSTANCE = Instance("vm-1", "p1", "u1", Flavor("1", "tiny", 1, 512, 1), host="h1", node="h1")
_buses = itertools.count()


class _Bus:
    def __init__(self) -> None:
        self.conf: cfg.ConfigOpts = saphira_conf.load([])
        self.conf.set_override("transport_url", f"inproc://console-test-{next(_buses)}")
        self.transport = get_rpc_transport(self.conf)
        self.driver = FakeDriver("h1", "h1")
        placement = PlacementClient("http://127.0.0.1:9/placement", lambda: "unused")
        manager = ComputeManager(
            "h1", [self.driver], ConductorAPI(self.transport), ComputeAPI(self.transport),
            placement,
        )  # fmt: skip
        self.servers: list[Server] = [
            start_server(self.conf, "compute", "h1", [manager], transport=self.transport)
        ]


@pytest.fixture
def bus() -> Iterator[_Bus]:
    bus = _Bus()
    bus.driver.spawn(INSTANCE, ImageMeta("img"), ())
    yield bus
    bus.driver.destroy(INSTANCE, ())
    stop_all(bus.servers)
    bus.transport.cleanup()


def test_the_host_answers_with_the_fake_guests_vnc_server(bus: _Bus) -> None:
    found = ComputeAPI(bus.transport).get_console_endpoint(CTXT, INSTANCE, ConsoleType.NOVNC)
    assert isinstance(found, ConsoleEndpoint) and found.host == "127.0.0.1"
    with socket.create_connection((found.host, found.port), timeout=30) as sock:
        recv, send = rfb_client.over_socket(sock)
        assert rfb_client.handshake(recv, send) == [1]  # security type None
        assert rfb_client.server_name(recv, send) == INSTANCE.name


def test_a_console_type_the_driver_lacks_is_a_400(bus: _Bus) -> None:
    with pytest.raises(ConsoleTypeUnavailable) as raised:
        ComputeAPI(bus.transport).get_console_endpoint(CTXT, INSTANCE, ConsoleType.SERIAL)
    assert raised.value.code == 400


def test_a_bus_pinned_below_1_4_refuses_before_sending(bus: _Bus) -> None:
    with pytest.raises(RPCPinnedToOldVersion):
        ComputeAPI(bus.transport, version_cap="1.3").get_console_endpoint(
            CTXT, INSTANCE, ConsoleType.NOVNC
        )


def test_a_destroyed_guests_vnc_server_stops() -> None:
    driver = FakeDriver("h1", "h1")
    driver.spawn(INSTANCE, ImageMeta("img"), ())
    port = driver.get_console(INSTANCE, ConsoleType.NOVNC).port
    driver.destroy(INSTANCE, ())
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=30).close()
