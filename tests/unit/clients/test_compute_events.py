"""Who the network service tells the compute API as, what it sends, and that an
absent or refusing API is no error."""

from __future__ import annotations

import socket

import pytest

from saphira import conf as saphira_conf
from saphira.clients.compute_events import ComputeEvents, ServerEvent
from saphira.clients.fake import FakeTransport
from saphira.clients.identity import PasswordToken

EVENT = ServerEvent("network-vif-plugged", "vm", "p1")
PATH = "/v2.1/os-server-external-events"


def _section(notifier: ComputeEvents | None) -> object:
    assert notifier is not None and isinstance(notifier.token, PasswordToken)
    return notifier.token.section


def test_the_nova_user_or_the_one_tokens_are_checked_as() -> None:
    conf = saphira_conf.load([])
    assert ComputeEvents.from_conf(conf) is None
    conf.set_override("username", "nova", group="keystone_authtoken")
    conf.set_override("password", "old", group="keystone_authtoken")
    assert _section(ComputeEvents.from_conf(conf)) is conf.keystone_authtoken
    conf.set_override("username", "nova", group="nova")
    conf.set_override("password", "new", group="nova")
    notifier = ComputeEvents.from_conf(conf)
    assert _section(notifier) is conf.nova
    assert notifier is not None and notifier.url(PATH[5:]).endswith(f":8774{PATH}")


def test_one_report_is_one_post_of_novas_event_shape() -> None:
    wire = FakeTransport()
    wire.reply("POST", PATH, json={"events": []})
    other = ServerEvent("network-vif-plugged", "vm", "p2")
    ComputeEvents("http://c.test/v2.1", lambda: "svc", transport=wire).send([EVENT, other])
    [sent] = wire.sent
    assert sent.headers["X-Auth-Token"] == "svc"
    assert sent.json == {"events": [
        {"name": "network-vif-plugged", "server_uuid": "vm", "tag": "p1", "status": "completed"},
        {"name": "network-vif-plugged", "server_uuid": "vm", "tag": "p2", "status": "completed"},
    ]}  # fmt: skip


def test_nothing_to_tell_sends_nothing() -> None:
    wire = FakeTransport()
    ComputeEvents("http://c.test/v2.1", lambda: "svc", transport=wire).send([])
    assert wire.sent == []


@pytest.mark.parametrize(("status", "logged"), [
    (404, "compute API: no server for network-vif-plugged:p1"),
    (403, "compute API refused events for network-vif-plugged:p1: 403 no"),
])  # fmt: skip
def test_a_refusal_is_logged(caplog: pytest.LogCaptureFixture, status: int, logged: str) -> None:
    caplog.set_level("INFO")
    wire = FakeTransport()
    wire.reply("POST", PATH, status=status, content=b"no")
    ComputeEvents("http://c.test/v2.1", lambda: "svc", transport=wire).send([EVENT])
    assert logged in caplog.text


def test_an_unreachable_compute_api_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    notifier = ComputeEvents(f"http://127.0.0.1:{port}/v2.1", lambda: "token", timeout=2)
    notifier.send([EVENT])
    assert "compute API not told of network-vif-plugged:p1" in caplog.text
