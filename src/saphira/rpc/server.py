"""Run RPC endpoints on a topic with oslo.messaging's threading executor."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any

import oslo_messaging
from oslo_config import cfg

from saphira.rpc.serializer import Serializer
from saphira.rpc.transport import get_rpc_transport


def endpoint_target(version: str, namespace: str | None = None) -> Any:
    """The ``target`` class attribute of an endpoint: the interface version it serves.

    The dispatcher refuses calls for a newer minor or another major with
    oslo_messaging.UnsupportedVersion, which the caller receives.
    """
    return oslo_messaging.Target(version=version, namespace=namespace)


class Server:
    """A running RPC server; stop() then wait() ends it (and its own transport)."""

    def __init__(self, server: Any, transport: Any, owns_transport: bool) -> None:
        self._server, self._transport, self._owns = server, transport, owns_transport

    @property
    def executor_type(self) -> str:
        return str(self._server.executor_type)

    def stop(self) -> None:
        self._server.stop()

    def wait(self) -> None:
        self._server.wait()
        if self._owns:
            self._transport.cleanup()


def start_server(
    conf: cfg.ConfigOpts,
    topic: str,
    server: str,
    endpoints: Sequence[object],
    *,
    transport: Any = None,
) -> Server:
    """Consume ``topic`` (shared), ``topic.server`` (direct) and the topic's fanout.

    Methods run on a pool of [DEFAULT] executor_thread_pool_size threads.
    """
    owns = transport is None
    transport = transport or get_rpc_transport(conf)
    target = oslo_messaging.Target(topic=topic, server=server)
    rpc_server = oslo_messaging.get_rpc_server(
        transport, target, list(endpoints), serializer=Serializer()
    )
    rpc_server.start()
    return Server(rpc_server, transport, owns)


def stop_all(servers: Iterable[Server]) -> None:
    """Stop every server, then wait for them together.

    Each wait can take up to a second (futurist's idle workers notice the
    shutdown on their next 1 s poll), so waiting in parallel keeps a
    process with many servers quick to stop.
    """
    running = list(servers)
    for server in running:
        server.stop()
    waiters = [threading.Thread(target=server.wait) for server in running]
    for waiter in waiters:
        waiter.start()
    for waiter in waiters:
        waiter.join()
