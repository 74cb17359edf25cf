"""Who the network service tells the compute API as, and that an absent API is no error."""

from __future__ import annotations

import socket

import pytest

from saphira import conf as saphira_conf
from saphira.clients.identity import PasswordToken
from saphira.netsvc.nova_notifier import NovaNotifier

EVENT = {"name": "network-vif-plugged", "server_uuid": "vm", "tag": "p1", "status": "completed"}


def _section(notifier: NovaNotifier | None) -> object:
    assert notifier is not None and isinstance(notifier.token, PasswordToken)
    return notifier.token.section


def test_the_nova_user_or_the_one_tokens_are_checked_as() -> None:
    conf = saphira_conf.load([])
    assert NovaNotifier.from_conf(conf) is None
    conf.set_override("username", "nova", group="keystone_authtoken")
    conf.set_override("password", "old", group="keystone_authtoken")
    assert _section(NovaNotifier.from_conf(conf)) is conf.keystone_authtoken
    conf.set_override("username", "nova", group="nova")
    conf.set_override("password", "new", group="nova")
    notifier = NovaNotifier.from_conf(conf)
    assert _section(notifier) is conf.nova
    assert notifier is not None and notifier.url.endswith(":8774/v2.1/os-server-external-events")


def test_an_unreachable_compute_api_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    notifier = NovaNotifier(f"http://127.0.0.1:{port}/v2.1", lambda: "token", timeout=2)
    notifier.send([EVENT])
    assert "compute API not told of network-vif-plugged:p1" in caplog.text
