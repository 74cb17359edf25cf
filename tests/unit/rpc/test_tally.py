"""The RPC stubs count what they send: round trips, casts and fanouts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from oslo_config import cfg

from saphira import exception
from saphira.common.tally import Counts, Tally
from saphira.context import RequestContext
from saphira.rpc.server import Server, start_server, stop_all
from tests.rpc_ping import TOPIC, Pair, PingAPI, PingManager

CTX = RequestContext(user_id="u1", project_id="p1", roles=("member",))


@pytest.fixture
def server(conf: cfg.ConfigOpts) -> Iterator[PingManager]:
    manager = PingManager("alpha")
    running: list[Server] = [start_server(conf, TOPIC, "alpha", [manager])]
    yield manager
    stop_all(running)


def test_two_calls_a_cast_and_a_fanout_are_counted_as_such(
    transport: Any, server: PingManager
) -> None:
    api = PingAPI(transport)
    api.tally = Tally()
    api.ping(CTX)
    api.ping(CTX)
    api.record(CTX, "one")
    api.broadcast(CTX, "all")
    assert server.received.get(timeout=30)[0] in ("one", "all")
    assert api.tally.read() == Counts(rpc_calls=2, rpc_casts=1, rpc_fanouts=1)
    assert api.tally.details() == {
        "rpc_calls ping.ping": 2,
        "rpc_casts ping.record": 1,
        "rpc_fanouts ping.record": 1,
    }


def test_a_call_the_version_cap_refuses_is_not_counted(transport: Any, server: PingManager) -> None:
    api = PingAPI(transport, version_cap="1.0")
    api.tally = Tally()
    with pytest.raises(exception.RPCPinnedToOldVersion):
        api.add(CTX, Pair(1, 2))
    assert api.tally.read() == Counts()
