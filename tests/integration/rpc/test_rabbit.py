"""The message bus against real RabbitMQ: across processes, restarts and timeouts."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from typing import Any

import pytest

from saphira import exception
from saphira.context import RequestContext
from saphira.rpc.server import start_server
from saphira.rpc.transport import get_rpc_transport
from tests.integration.broker import PrivateBroker
from tests.integration.rpc.conftest import PingProcess, rabbit_conf
from tests.polling import wait_for
from tests.rpc_ping import Pair, PingAPI, PingManager

pytestmark = pytest.mark.integration
CTX = RequestContext(user_id="u1", project_id="p1", roles=("member",))
Spawn = Callable[[str, str, str], PingProcess]


def _api(url: str, topic: str, **kwargs: Any) -> tuple[PingAPI, Any]:
    transport = get_rpc_transport(rabbit_conf(url))
    return PingAPI(transport, topic=topic, **kwargs), transport


def test_call_cast_and_fanout_across_processes(
    rabbit_url: str, topic: str, ping_process: Spawn
) -> None:
    alpha = ping_process(rabbit_url, topic, "alpha")
    beta = ping_process(rabbit_url, topic, "beta")
    api, transport = _api(rabbit_url, topic, timeout=60)
    try:
        assert api.ping(CTX, server="alpha")["server"] == "alpha"
        reply = api.ping(CTX, server="beta")
        assert (reply["server"], reply["request_id"]) == ("beta", CTX.request_id)
        assert api.add(CTX, Pair(20, 22)).left == 42
        with pytest.raises(exception.NotFound, match="no spoon"):
            api.fail(CTX, "spoon")
        api.record(CTX, "direct", server="beta")
        api.broadcast(CTX, "everyone")
        wait_for("the fanout at alpha", lambda: "everyone" in alpha.lines(), timeout=60)
        wait_for("beta's casts", lambda: {"direct", "everyone"} <= set(beta.lines()), timeout=60)
        assert "direct" not in alpha.lines()
    finally:
        transport.cleanup()


def test_call_times_out_with_a_saphira_error(rabbit_url: str, topic: str) -> None:
    api, transport = _api(rabbit_url, topic)
    try:
        with pytest.raises(exception.MessagingTimeout, match=f"topic {topic}"):
            api.ping(CTX, timeout=1)
    finally:
        transport.cleanup()


def test_a_cast_waits_for_a_restarted_consumer(
    rabbit_url: str, topic: str, ping_process: Spawn
) -> None:
    consumer = ping_process(rabbit_url, topic, "alpha")
    consumer.stop()
    api, transport = _api(rabbit_url, topic)
    try:
        api.record(CTX, "sent while down")
    finally:
        transport.cleanup()
    consumer.start()
    wait_for(
        "the cast after the restart", lambda: consumer.lines() == ["sent while down"], timeout=60
    )


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_a_cast_survives_a_broker_restart(
    private_broker: PrivateBroker, topic: str, ping_process: Spawn
) -> None:
    consumer = ping_process(private_broker.url, topic, "alpha")
    consumer.stop()
    api, transport = _api(private_broker.url, topic)
    try:
        api.record(CTX, "durable")
    finally:
        transport.cleanup()
    private_broker.restart()
    consumer.start()
    wait_for(
        "the cast queued before the restart", lambda: consumer.lines() == ["durable"], timeout=60
    )
    gc.collect()


# kombu drops the socket of a connection the broker reset without closing it;
# collect it here so the warning is ignored in this test and no other.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_client_and_server_survive_a_broker_restart(
    private_broker: PrivateBroker, topic: str
) -> None:
    conf = rabbit_conf(private_broker.url)
    server = start_server(conf, topic, "alpha", [PingManager("alpha")])
    api, transport = _api(private_broker.url, topic, timeout=60)
    try:
        assert api.ping(CTX)["server"] == "alpha"
        private_broker.restart()
        assert api.ping(CTX)["server"] == "alpha"
        api.record(CTX, "after the restart", server="alpha")
        assert api.ping(CTX, server="alpha")["server"] == "alpha"
    finally:
        server.stop()
        server.wait()
        transport.cleanup()
        gc.collect()


def _outcome(call: Callable[[], Any], into: list[object]) -> None:
    try:
        into.append(call())
    except Exception as error:
        into.append(error)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_a_call_while_the_broker_is_down_ends_at_its_timeout(
    private_broker: PrivateBroker, topic: str
) -> None:
    """The driver retries the publish until the broker is back; the caller stops waiting."""
    conf = rabbit_conf(private_broker.url)
    server = start_server(conf, topic, "alpha", [PingManager("alpha")])
    api, transport = _api(private_broker.url, topic, timeout=60)
    outcome: list[object] = []
    try:
        assert api.ping(CTX)["server"] == "alpha"
        private_broker.stop()
        caller = threading.Thread(target=_outcome, args=(lambda: api.ping(CTX, timeout=3), outcome))
        caller.start()
        caller.join(60)  # only detects a hang
        hung = caller.is_alive()
        private_broker.start()
        assert not hung, "a 3 s call was still waiting a minute later"
        assert isinstance(outcome[0], exception.MessagingTimeout), outcome
        assert api.ping(CTX)["server"] == "alpha"
    finally:
        server.stop()
        server.wait()
        transport.cleanup()
        gc.collect()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_a_cast_sent_while_the_broker_is_down_arrives_once_it_is_back(
    private_broker: PrivateBroker, topic: str
) -> None:
    """The driver retries the publish until it reconnects (then confirmed): delayed, not lost."""
    conf = rabbit_conf(private_broker.url)
    manager = PingManager("alpha")
    server = start_server(conf, topic, "alpha", [manager])
    api, transport = _api(private_broker.url, topic, timeout=60)
    outcome: list[object] = []
    try:
        assert api.ping(CTX)["server"] == "alpha"
        private_broker.stop()
        caster = threading.Thread(target=_outcome, args=(lambda: api.record(CTX, "held"), outcome))
        caster.start()
        private_broker.start()
        caster.join(120)  # only detects a hang
        assert outcome == [None]
        assert manager.received.get(timeout=60)[0] == "held"
    finally:
        server.stop()
        server.wait()
        transport.cleanup()
        gc.collect()
