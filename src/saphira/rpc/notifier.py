"""Notifications: what happened, to whoever listens (Nova's versioned notifications).

Whether they are sent at all is [oslo_messaging_notifications] driver: the
default (empty) drops them, ``messagingv2`` puts them on the bus under the
``notifications`` topic. Event types read ``<object>.<action>[.<phase>]``,
e.g. ``instance.create.start``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import oslo_messaging
from oslo_config import cfg

from saphira.context import RequestContext
from saphira.rpc.serializer import Serializer
from saphira.rpc.server import Server
from saphira.rpc.transport import get_notification_transport

_EVENT_TYPE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$")


class Notifier:
    """Sends notifications as ``<service>.<host>`` (the publisher id)."""

    def __init__(self, transport: Any, publisher_id: str, *, driver: str | None = None) -> None:
        self.publisher_id = publisher_id
        self._notifier = oslo_messaging.Notifier(
            transport, publisher_id=publisher_id, driver=driver, serializer=Serializer()
        )

    def _emit(self, priority: str, ctxt: RequestContext, event_type: str, payload: Any) -> None:
        if not _EVENT_TYPE.match(event_type):
            raise ValueError(f"event type {event_type!r} is not <object>.<action>[.<phase>]")
        getattr(self._notifier, priority)(ctxt, event_type, payload)

    def info(self, ctxt: RequestContext, event_type: str, payload: Any) -> None:
        self._emit("info", ctxt, event_type, payload)

    def warn(self, ctxt: RequestContext, event_type: str, payload: Any) -> None:
        self._emit("warn", ctxt, event_type, payload)

    def error(self, ctxt: RequestContext, event_type: str, payload: Any) -> None:
        self._emit("error", ctxt, event_type, payload)


def get_notifier(
    conf: cfg.ConfigOpts, service: str, *, host: str | None = None, transport: Any = None
) -> Notifier:
    transport = transport or get_notification_transport(conf)
    return Notifier(transport, f"{service}.{host or conf.host}")


def start_notification_listener(
    conf: cfg.ConfigOpts,
    endpoints: Sequence[object],
    *,
    topics: Sequence[str] = ("notifications",),
    pool: str | None = None,
    transport: Any = None,
) -> Server:
    """Endpoints have info/warn/error(ctxt, publisher_id, event_type, payload, metadata)."""
    owns = transport is None
    transport = transport or get_notification_transport(conf)
    targets = [oslo_messaging.Target(topic=topic) for topic in topics]
    listener = oslo_messaging.get_notification_listener(
        transport, targets, list(endpoints), serializer=Serializer(), pool=pool
    )
    listener.start()
    return Server(listener, transport, owns)
