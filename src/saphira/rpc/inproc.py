"""The in-process transport behind ``inproc://``: the embedded cloud's message bus.

oslo.messaging's own ``fake://`` driver was the first candidate; it does
RPC call, cast, fanout and notifications, but it is a unit-test tool:

* its exchanges live in one class-level dict, so every transport in the
  process shares them and any transport's cleanup() empties them all (two
  clouds in one test process would cross-talk);
* its listeners poll every 50 ms, adding up to 50 ms to each hop of a
  build (API -> conductor -> scheduler -> compute);
* it hands the receiver the sender's objects and exceptions as they are,
  where RabbitMQ delivers JSON and a RemoteError for a non-allowed module,
  so code could pass here and fail on the real bus.

This driver keeps the fake's queue semantics (topic queues shared by the
servers of a topic, one queue per server, messages waiting in a queue for
their consumer) and RabbitMQ's fanout: every listener has a fanout queue of
its own, so two servers of one topic on one host (the L2 and DHCP agents)
both hear a fanout cast. Unlike the fake, it gives each URL's virtual host
its own bus, wakes consumers with a condition variable, and round-trips
messages, replies and failures through JSON as the wire does. A message
wakes only the listeners of its queue (each has its own condition on the
bus's one lock), not every listener of the process: with a couple of dozen
listeners in the all-in-one, waking them all made each hop wait for threads
that had nothing to take.
"""

from __future__ import annotations

import collections
import queue
import threading
import time
import uuid
import weakref
from dataclasses import dataclass, field
from typing import Any

from oslo_messaging import MessagingTimeout
from oslo_messaging._drivers import base
from oslo_messaging._drivers import common as rpc_common
from oslo_serialization import jsonutils

# (kind, exchange, topic, server-or-pool-or-listener): kind is "topic", "server" or "fanout".
_Key = tuple[str, str, str, str | None]


@dataclass
class _Envelope:
    ctxt: str
    message: str
    reply_q: queue.Queue[tuple[Any, str | None]] | None


@dataclass(eq=False)
class _Bus:
    """One process-local broker: FIFO queues of JSON text under one lock; each
    listener waits on a condition of its own, woken by its queues' messages."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    queues: dict[_Key, collections.deque[_Envelope]] = field(default_factory=dict)
    listening: collections.Counter[_Key] = field(default_factory=collections.Counter)
    waiting: dict[_Key, list[threading.Condition]] = field(default_factory=dict)
    woken: int = 0  # listener conditions notified (tests: one message, its listeners only)

    def wake(self, key: _Key) -> None:
        """Notify the listeners taking from ``key``; the lock is held."""
        for condition in self.waiting.get(key, ()):
            condition.notify()
            self.woken += 1

    def deliver(self, keys: list[_Key], envelope: _Envelope) -> None:
        with self.lock:
            for key in keys:
                self.queues.setdefault(key, collections.deque()).append(envelope)
                self.wake(key)

    def topic_keys(self, exchange: str, topic: str) -> list[_Key]:
        """Every pool's queue of a topic; the default one is made if none exists."""
        with self.lock:
            keys = [k for k in self.queues if k[:3] == ("topic", exchange, topic)]
            return keys or [("topic", exchange, topic, None)]

    def fanout_keys(self, exchange: str, topic: str) -> list[_Key]:
        with self.lock:
            return [k for k in self.listening if k[:3] == ("fanout", exchange, topic)]


_buses: weakref.WeakValueDictionary[str, _Bus] = weakref.WeakValueDictionary()
_buses_lock = threading.Lock()


def _bus_for(virtual_host: str | None) -> _Bus:
    with _buses_lock:
        bus = _buses.get(virtual_host or "")
        if bus is None:
            bus = _buses[virtual_host or ""] = _Bus()
        return bus


class _Incoming(base.RpcIncomingMessage):  # type: ignore[misc]
    def __init__(self, bus: _Bus, key: _Key, envelope: _Envelope) -> None:
        super().__init__(jsonutils.loads(envelope.ctxt), jsonutils.loads(envelope.message))
        self._bus, self._key, self._envelope = bus, key, envelope

    def reply(self, reply: Any = None, failure: Any = None) -> None:
        if self._envelope.reply_q is not None:
            text = rpc_common.serialize_remote_exception(failure) if failure else None
            self._envelope.reply_q.put((jsonutils.loads(jsonutils.dumps(reply)), text))

    def requeue(self) -> None:
        with self._bus.lock:
            self._bus.queues.setdefault(self._key, collections.deque()).appendleft(self._envelope)
            self._bus.wake(self._key)

    def heartbeat(self) -> None:
        """Nothing to keep alive in process."""


class _Listener(base.PollStyleListener):  # type: ignore[misc]
    def __init__(self, bus: _Bus, keys: list[_Key], fanout_key: _Key | None) -> None:
        super().__init__()
        self._bus, self._keys, self._fanout_key = bus, keys, fanout_key
        self._stopped = False
        self._wake = threading.Condition(bus.lock)
        with bus.lock:
            for key in keys:
                bus.queues.setdefault(key, collections.deque())
                bus.waiting.setdefault(key, []).append(self._wake)
            if fanout_key is not None:
                bus.listening[fanout_key] = 1

    @base.batch_poll_helper  # type: ignore[untyped-decorator]
    def poll(self, timeout: float | None = None) -> _Incoming | None:
        """Take the next message of any of our queues; None once stopped or timed out."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._bus.lock:
            while not self._stopped:
                for key in self._keys:
                    pending = self._bus.queues.get(key)
                    if pending:
                        return _Incoming(self._bus, key, pending.popleft())
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return None
                self._wake.wait(left)
        return None

    def stop(self) -> None:
        with self._bus.lock:
            if not self._stopped:
                for key in self._keys:
                    self._bus.waiting[key].remove(self._wake)
            if not self._stopped and self._fanout_key is not None:
                del self._bus.listening[self._fanout_key]
                self._bus.queues.pop(self._fanout_key, None)
            self._stopped = True
            self._wake.notify_all()


class InProcDriver(base.BaseDriver):  # type: ignore[misc]
    """oslo.messaging driver for one process; see the module docstring."""

    def __init__(
        self,
        conf: Any,
        url: Any,
        default_exchange: str | None = None,
        allowed_remote_exmods: list[str] | None = None,
    ) -> None:
        super().__init__(conf, url, default_exchange, allowed_remote_exmods)
        self._bus = _bus_for(url.virtual_host)
        self._exmods = allowed_remote_exmods or []

    def require_features(self, requeue: bool = True) -> None:
        """Requeue is supported."""

    def _exchange(self, target: Any) -> str:
        return str(target.exchange or self._default_exchange)

    def send(
        self,
        target: Any,
        ctxt: dict[str, Any],
        message: dict[str, Any],
        wait_for_reply: bool | None = None,
        timeout: float | None = None,
        call_monitor_timeout: float | None = None,
        retry: int | None = None,
        transport_options: Any = None,
    ) -> Any:
        exchange = self._exchange(target)
        reply_q: queue.Queue[tuple[Any, str | None]] | None = (
            queue.Queue() if wait_for_reply else None
        )
        envelope = _Envelope(jsonutils.dumps(ctxt), jsonutils.dumps(message), reply_q)
        if target.fanout:
            keys = self._bus.fanout_keys(exchange, target.topic)
        elif target.server:
            keys = [("server", exchange, target.topic, target.server)]
        else:
            keys = self._bus.topic_keys(exchange, target.topic)
        self._bus.deliver(keys, envelope)
        if reply_q is None:
            return None
        try:
            reply, failure = reply_q.get(timeout=timeout)
        except queue.Empty:
            raise MessagingTimeout(f"No reply on topic {target.topic}") from None
        if failure is not None:
            raise rpc_common.deserialize_remote_exception(failure, self._exmods)
        return reply

    def send_notification(
        self,
        target: Any,
        ctxt: dict[str, Any],
        message: dict[str, Any],
        version: Any,
        retry: Any = None,
    ) -> None:
        envelope = _Envelope(jsonutils.dumps(ctxt), jsonutils.dumps(message), None)
        self._bus.deliver(self._bus.topic_keys(self._exchange(target), target.topic), envelope)

    def listen(self, target: Any, batch_size: int, batch_timeout: float | None) -> Any:
        exchange = self._exchange(target)
        server_key: _Key = ("server", exchange, target.topic, target.server)
        fanout_key: _Key = ("fanout", exchange, target.topic, uuid.uuid4().hex)
        keys: list[_Key] = [server_key, ("topic", exchange, target.topic, None), fanout_key]
        listener = _Listener(self._bus, keys, fanout_key)
        return base.PollStyleListenerAdapter(listener, batch_size, batch_timeout)

    def listen_for_notifications(
        self, targets_and_priorities: Any, pool: str | None, batch_size: int, batch_timeout: Any
    ) -> Any:
        keys: list[_Key] = [
            ("topic", self._exchange(target), f"{target.topic}.{priority}", pool)
            for target, priority in targets_and_priorities
        ]
        return base.PollStyleListenerAdapter(
            _Listener(self._bus, keys, None), batch_size, batch_timeout
        )

    def cleanup(self) -> None:
        """Queues belong to the bus, which lives while any transport uses it."""
