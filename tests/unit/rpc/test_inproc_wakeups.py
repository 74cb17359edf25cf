"""A message on the in-process bus wakes the listeners of its queue, not every listener."""

from __future__ import annotations

import threading

from saphira.rpc.inproc import _Bus, _Envelope, _Key, _Listener

CONDUCTOR: _Key = ("topic", "saphira", "conductor", None)
COMPUTE: _Key = ("topic", "saphira", "compute", None)


def _message(method: str) -> _Envelope:
    return _Envelope('{"request_id": "r"}', f'{{"method": "{method}"}}', None)


def test_a_message_wakes_only_the_listeners_of_its_queue() -> None:
    bus = _Bus()
    listeners = [_Listener(bus, [CONDUCTOR], None), _Listener(bus, [CONDUCTOR], None)]
    others = [_Listener(bus, [COMPUTE], None) for _ in range(5)]
    bus.deliver([CONDUCTOR], _message("build_started"))
    assert bus.woken == len(listeners)
    for listener in [*listeners, *others]:
        listener.stop()


def test_a_waiting_listener_takes_a_message_delivered_meanwhile() -> None:
    bus = _Bus()
    listener, taken = _Listener(bus, [COMPUTE], None), []
    poller = threading.Thread(target=lambda: taken.extend(listener.poll(timeout=60)))
    poller.start()
    bus.deliver([CONDUCTOR], _message("elsewhere"))
    bus.deliver([COMPUTE], _message("build_and_run_instance"))
    poller.join(timeout=60)
    assert [incoming.message["method"] for incoming in taken] == ["build_and_run_instance"]


def test_a_stopped_listener_is_no_longer_woken() -> None:
    bus = _Bus()
    listener = _Listener(bus, [COMPUTE], None)
    listener.stop()
    bus.deliver([COMPUTE], _message("build_and_run_instance"))
    assert bus.woken == 0
