"""ConsoleProxy on loopback between a websocket client and a fake guest's VNC server."""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from saphira.consoleproxy.server import ConsoleProxy, ProxySettings
from saphira.db.cell.console_tokens import ConsoleToken
from saphira.exception import ConsoleTokenInvalid
from saphira.objects import ConsoleType
from saphira.virt.fake.rfb import RfbServer
from tests import rfb_client
from tests.ws_client import Refused, WsClient

TOKEN = "good-token"


@dataclass
class Tokens:
    """The token store as the proxy sees it: one callable."""

    records: dict[str, ConsoleToken] = field(default_factory=dict)

    def __call__(self, token: str) -> ConsoleToken:
        if token == "store-down":
            raise RuntimeError("the database is gone")
        found = self.records.get(token)
        if found is None or found.expires <= time.time():
            raise ConsoleTokenInvalid(token="***")
        return found


@dataclass
class Rig:
    proxy: ConsoleProxy
    tokens: Tokens
    guest: RfbServer

    @property
    def port(self) -> int:
        return int(self.proxy.server_address[1])

    def open(self, path: str = f"/?token={TOKEN}", origin: str | None = None) -> WsClient:
        return WsClient.open("127.0.0.1", self.port, path, origin)

    def grant(self, token: str, expires_in: float = 600, kind: str = "novnc") -> None:
        self.tokens.records[token] = ConsoleToken(
            kind, "127.0.0.1", self.guest.port, None, "vm-1", None, int(time.time() + expires_in)
        )


def _start(tmp_path: Path, settings: ProxySettings) -> Iterator[Rig]:
    (tmp_path / "vnc_lite.html").write_text("<html>noVNC</html>")
    guest, tokens = RfbServer("guest-1"), Tokens()
    proxy = ConsoleProxy(("127.0.0.1", 0), tokens, settings)
    proxy.prepare()
    thread = threading.Thread(target=proxy.serve)
    thread.start()
    rig = Rig(proxy, tokens, guest)
    rig.grant(TOKEN)
    try:
        yield rig
    finally:
        proxy.stop()
        thread.join(timeout=10)
        guest.stop()


SETTINGS = ProxySettings(ConsoleType.NOVNC, "", ["console.example"], 2)


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    yield from _start(tmp_path, replace(SETTINGS, web_root=str(tmp_path)))


def _handshake(client: WsClient) -> str:
    assert rfb_client.handshake(client.recv, client.send) == [1]
    return rfb_client.server_name(client.recv, client.send)


def test_a_good_token_relays_the_rfb_handshake(rig: Rig) -> None:
    origin = f"http://127.0.0.1:{rig.port}"  # the page's own origin
    for allowed in (None, origin, "https://console.example"):
        with rig.open(origin=allowed) as client:
            assert _handshake(client) == "guest-1"


@pytest.mark.parametrize(
    ("path", "origin"),
    [("/?token=bad-token", None), ("/", None), (f"/?token={TOKEN}", "http://evil.example"),
     (f"/?token={TOKEN}", "http://127.0.0.1.evil.example")],
)  # fmt: skip
def test_a_wrong_token_or_a_foreign_origin_is_refused(
    rig: Rig, path: str, origin: str | None
) -> None:
    with pytest.raises(Refused) as refused:
        rig.open(path, origin)
    assert refused.value.status == 403


def test_an_expired_token_or_another_consoles_type_is_refused(rig: Rig) -> None:
    rig.grant("old", expires_in=-1)
    rig.grant("serial", kind="serial")
    for token in ("old", "serial"):
        with pytest.raises(Refused):
            rig.open(f"/?token={token}")


def test_connections_per_token_are_limited(rig: Rig) -> None:
    with rig.open() as first, rig.open() as second:
        assert _handshake(first) == "guest-1"
        with pytest.raises(Refused) as refused:
            rig.open()
        assert refused.value.status == 429
        first.close()
        assert _handshake(second) == "guest-1"
        deadline = time.monotonic() + 30  # the proxy notices the first one gone
        while time.monotonic() < deadline:
            try:
                with rig.open() as third:
                    assert _handshake(third) == "guest-1"
                return
            except Refused:
                time.sleep(0.1)
    raise AssertionError("the closed connection's slot was never released")


def test_the_client_files_are_served_but_no_listing_and_no_double_slash(rig: Rig) -> None:
    base = f"http://127.0.0.1:{rig.port}"
    with urllib.request.urlopen(f"{base}/vnc_lite.html", timeout=30) as page:
        assert b"noVNC" in page.read()
    for path in ("/", "//evil.example/vnc_lite.html"):
        with pytest.raises(urllib.error.HTTPError) as failed:
            urllib.request.urlopen(f"{base}{path}", timeout=30)
        assert failed.value.code in (400, 404)
        failed.value.close()


def test_with_enforce_session_timeout_the_session_ends_at_expiry(tmp_path: Path) -> None:
    settings = replace(SETTINGS, web_root=str(tmp_path), enforce_session_timeout=True)
    for rig in _start(tmp_path, settings):
        rig.grant("short", expires_in=2)
        with rig.open("/?token=short") as client:
            assert _handshake(client) == "guest-1"
            assert client.closed()  # the proxy ends it (the 30 s socket timeout: a hang)


def test_stopping_the_proxy_ends_open_sessions(tmp_path: Path) -> None:
    for rig in _start(tmp_path, replace(SETTINGS, web_root=str(tmp_path))):
        with rig.open() as client:
            assert _handshake(client) == "guest-1"
            rig.proxy.stop()
            assert client.closed()


def test_a_token_store_that_fails_is_a_503_not_a_dropped_connection(rig: Rig) -> None:
    with pytest.raises(Refused) as refused:
        rig.open("/?token=store-down")
    assert refused.value.status == 503
    with rig.open() as client:  # the proxy carries on
        assert _handshake(client) == "guest-1"
