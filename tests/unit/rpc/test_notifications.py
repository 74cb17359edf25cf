"""Notifications on the in-process bus: publisher id, event type, typed payload."""

from __future__ import annotations

import queue
from typing import Any, NamedTuple

import pytest
from oslo_config import cfg

from saphira.context import RequestContext
from saphira.rpc.notifier import get_notifier, start_notification_listener
from tests.rpc_ping import Pair


class Seen(NamedTuple):
    priority: str
    ctxt: Any
    publisher: str
    event_type: str
    payload: Any


class Collector:
    def __init__(self) -> None:
        self.seen: queue.Queue[Seen] = queue.Queue()

    def info(self, ctxt: Any, publisher_id: str, event_type: str, payload: Any, meta: Any) -> None:
        self.seen.put(Seen("info", ctxt, publisher_id, event_type, payload))

    def error(self, ctxt: Any, publisher_id: str, event_type: str, payload: Any, meta: Any) -> None:
        self.seen.put(Seen("error", ctxt, publisher_id, event_type, payload))


def test_listener_receives_what_the_notifier_sends(conf: cfg.ConfigOpts) -> None:
    conf.set_override("driver", ["messagingv2"], group="oslo_messaging_notifications")
    collector = Collector()
    listener = start_notification_listener(conf, [collector])
    try:
        notifier = get_notifier(conf, "compute", host="node1")
        ctxt = RequestContext(project_id="p1")
        notifier.info(ctxt, "instance.create.start", Pair(1, 2))
        notifier.error(ctxt, "instance.create.error", {"reason": "boom"})
        # Each priority has its own queue (notifications.info, .error): no order between them.
        got = {item[0]: item for item in (collector.seen.get(timeout=30) for _ in range(2))}
    finally:
        listener.stop()
        listener.wait()
    first, second = got["info"], got["error"]
    priority, got_ctxt, publisher, event_type, payload = first
    assert (priority, publisher, event_type) == ("info", "compute.node1", "instance.create.start")
    assert payload == Pair(1, 2)
    assert got_ctxt.project_id == "p1"
    assert (second[0], second[3]) == ("error", "instance.create.error")
    assert second[4] == {"reason": "boom"}


def test_notifications_are_dropped_without_a_driver(conf: cfg.ConfigOpts) -> None:
    collector = Collector()
    listener = start_notification_listener(conf, [collector])
    try:
        get_notifier(conf, "compute").info(RequestContext(), "instance.delete.end", {})
        with pytest.raises(queue.Empty):
            collector.seen.get(timeout=0.3)
    finally:
        listener.stop()
        listener.wait()


def test_event_types_are_checked(conf: cfg.ConfigOpts) -> None:
    with pytest.raises(ValueError, match=r"not <object>\.<action>"):
        get_notifier(conf, "compute").info(RequestContext(), "Instance Create", {})
