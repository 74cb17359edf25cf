"""Run RPC endpoints on a topic with oslo.messaging's threading executor."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from concurrent import futures
from typing import Any

import futurist
import oslo_messaging
from futurist import _utils as futurist_utils
from oslo_config import cfg

from saphira.rpc.serializer import Serializer
from saphira.rpc.transport import get_rpc_transport


def endpoint_target(version: str, namespace: str | None = None) -> Any:
    """The ``target`` class attribute of an endpoint: the interface version it serves.

    The dispatcher refuses calls for a newer minor or another major with
    oslo_messaging.UnsupportedVersion, which the caller receives.
    """
    return oslo_messaging.Target(version=version, namespace=namespace)


class PromptPool(futurist.ThreadPoolExecutor):
    """futurist's pool, whose shutdown wakes its idle workers.

    They wait for work in 1 s slices and look for the stop only between
    them, so each server's wait() took up to a second after its last message
    (a second or more of every service's stop). As futurist does, the work
    queued so far is finished first; then each worker is marked to stop and
    handed a no-op, which it runs and returns from at once.
    """

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if wait:
            self._work_queue.join()
        super().shutdown(wait=False, cancel_futures=cancel_futures)
        for _ in self._workers:
            self._work_queue.put(futurist_utils.WorkItem(futures.Future(), _nothing))
        if wait:
            for worker in self._workers:
                worker.join()


def _nothing() -> None:
    return None


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
    rpc_server._executor_cls = PromptPool  # the "threading" executor's class, stopping at once
    rpc_server.start()
    return Server(rpc_server, transport, owns)


def stop_all(servers: Iterable[Server]) -> None:
    """Stop every server, then wait for them together.

    A wait lasts as long as the work in progress (``PromptPool`` wakes the
    idle workers); waiting in parallel keeps a process with many servers
    busy at once quick to stop.
    """
    running = list(servers)
    for server in running:
        server.stop()
    waiters = [threading.Thread(target=server.wait) for server in running]
    for waiter in waiters:
        waiter.start()
    for waiter in waiters:
        waiter.join()
