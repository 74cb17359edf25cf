"""RPC call/cast/fanout, errors, timeouts and version caps on the in-process bus."""

from __future__ import annotations

import queue
from collections.abc import Iterator
from typing import Any

import oslo_messaging
import pytest
from oslo_config import cfg

from saphira import exception
from saphira.context import RequestContext
from saphira.rpc.server import Server, start_server, stop_all
from saphira.rpc.transport import get_rpc_transport
from tests.rpc_ping import TOPIC, Pair, PingAPI, PingManager

CTX = RequestContext(user_id="u1", project_id="p1", roles=("member", "reader"))


@pytest.fixture
def servers(conf: cfg.ConfigOpts) -> Iterator[dict[str, PingManager]]:
    managers = {name: PingManager(name) for name in ("alpha", "beta")}
    running: list[Server] = [
        start_server(conf, TOPIC, name, [manager]) for name, manager in managers.items()
    ]
    yield managers
    stop_all(running)


def _take(manager: PingManager) -> tuple[str, RequestContext]:
    return manager.received.get(timeout=30)


def test_call_returns_the_result_and_carries_the_context(
    transport: Any, servers: dict[str, PingManager]
) -> None:
    reply = PingAPI(transport).ping(CTX)
    assert reply["server"] in servers
    assert reply["request_id"] == CTX.request_id
    assert reply["roles"] == ["member", "reader"]


def test_call_to_a_named_server(transport: Any, servers: dict[str, PingManager]) -> None:
    assert PingAPI(transport).ping(CTX, server="beta")["server"] == "beta"


def test_cast_reaches_the_named_server_with_the_context(
    transport: Any, servers: dict[str, PingManager]
) -> None:
    PingAPI(transport).record(CTX, "hello", server="alpha")
    item, ctxt = _take(servers["alpha"])
    assert item == "hello"
    assert isinstance(ctxt, RequestContext)
    assert (ctxt.user_id, ctxt.project_id, ctxt.request_id) == ("u1", "p1", CTX.request_id)
    assert servers["beta"].received.empty()


def test_topic_casts_are_shared_between_the_servers(
    transport: Any, servers: dict[str, PingManager]
) -> None:
    api = PingAPI(transport)
    for number in range(6):
        api.record(CTX, f"m{number}")
    seen: list[str] = []
    while len(seen) < 6:
        for manager in servers.values():
            try:
                seen.append(manager.received.get(timeout=0.05)[0])
            except queue.Empty:
                continue
    assert sorted(seen) == [f"m{number}" for number in range(6)]


def test_fanout_reaches_every_server(transport: Any, servers: dict[str, PingManager]) -> None:
    PingAPI(transport).broadcast(CTX, "to all")
    assert _take(servers["alpha"])[0] == "to all"
    assert _take(servers["beta"])[0] == "to all"


def test_fanout_reaches_two_servers_of_one_host(conf: cfg.ConfigOpts, transport: Any) -> None:
    """As RabbitMQ's per-listener fanout queues do: a host's L2 and DHCP agents
    listen on one topic under one server name, and each must hear the nudge."""
    managers = [PingManager("same-host"), PingManager("same-host")]
    running = [start_server(conf, TOPIC, "same-host", [manager]) for manager in managers]
    try:
        PingAPI(transport).broadcast(CTX, "to both")
        assert [_take(manager)[0] for manager in managers] == ["to both", "to both"]
    finally:
        stop_all(running)


def test_a_cast_waits_in_its_queue_for_a_restarted_consumer(
    conf: cfg.ConfigOpts, transport: Any
) -> None:
    first = start_server(conf, TOPIC, "alpha", [PingManager("alpha")])
    first.stop()
    first.wait()
    PingAPI(transport).record(CTX, "while you were out")
    manager = PingManager("alpha")
    second = start_server(conf, TOPIC, "alpha", [manager])
    try:
        assert _take(manager)[0] == "while you were out"
    finally:
        second.stop()
        second.wait()


def test_payloads_cross_as_their_dataclass(transport: Any, servers: dict[str, PingManager]) -> None:
    result = PingAPI(transport).add(CTX, Pair(2, 3))
    assert isinstance(result, Pair)
    assert result.left == 5
    assert result.note.endswith(":Pair")


def test_saphira_errors_cross_as_themselves(
    transport: Any, servers: dict[str, PingManager]
) -> None:
    with pytest.raises(exception.NotFound) as caught:
        PingAPI(transport).fail(CTX, "spoon")
    assert "no spoon here" in str(caught.value)


def test_timeout_is_a_saphira_messaging_timeout(transport: Any) -> None:
    with pytest.raises(exception.MessagingTimeout) as caught:
        PingAPI(transport).ping(CTX, timeout=0.1)
    assert isinstance(caught.value.__cause__, oslo_messaging.MessagingTimeout)
    assert "topic ping" in caught.value.message
    assert caught.value.code == 504


def test_version_cap_refuses_before_sending(
    transport: Any, servers: dict[str, PingManager]
) -> None:
    pinned = PingAPI(transport, version_cap="1.0")
    assert pinned.can_send_version("1.0")
    assert not pinned.can_send_version("1.1")
    with pytest.raises(exception.RPCPinnedToOldVersion, match=r"add needs RPC version 1\.1"):
        pinned.add(CTX, Pair(1, 1))
    assert pinned.ping(CTX)["server"] in servers


def test_an_older_server_refuses_a_newer_call(conf: cfg.ConfigOpts, transport: Any) -> None:
    old = start_server(conf, TOPIC, "old", [PingManager("old", version="1.0")])
    try:
        with pytest.raises(oslo_messaging.RemoteError, match="UnsupportedVersion"):
            PingAPI(transport).add(CTX, Pair(1, 1))
    finally:
        old.stop()
        old.wait()


def test_servers_run_on_the_threading_executor(conf: cfg.ConfigOpts) -> None:
    server = start_server(conf, TOPIC, "alpha", [PingManager("alpha")])
    try:
        assert server.executor_type == "threading"
    finally:
        server.stop()
        server.wait()


def test_two_inproc_buses_do_not_cross_talk(
    conf: cfg.ConfigOpts, servers: dict[str, PingManager]
) -> None:
    other = get_rpc_transport(conf, url="inproc:///another-cloud")
    try:
        with pytest.raises(exception.MessagingTimeout):
            PingAPI(other).ping(CTX, timeout=0.1)
    finally:
        other.cleanup()
