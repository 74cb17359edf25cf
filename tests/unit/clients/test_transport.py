"""The requests transport: a refused connection is a TransportError, not requests'."""

from __future__ import annotations

import http.server
import socket
import threading
import uuid
from collections.abc import Iterator

import pytest

from saphira.clients.transport import Request, RequestsTransport, TransportError


def test_a_closed_port_is_a_transport_error() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(TransportError):
        RequestsTransport().send(Request("GET", f"http://127.0.0.1:{port}/", timeout=2))


def test_a_service_that_never_answers_is_not_worth_retrying() -> None:
    with socket.socket() as sock:  # listening: the kernel accepts, nobody answers
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
        with pytest.raises(TransportError) as raised:
            RequestsTransport().send(Request("GET", url, timeout=0.5))
    assert raised.value.retryable is False


def test_a_refused_connection_is_worth_retrying() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(TransportError) as raised:
        RequestsTransport().send(Request("GET", f"http://127.0.0.1:{port}/", timeout=2))
    assert raised.value.retryable is True


class _Echo(http.server.BaseHTTPRequestHandler):
    """Answers every GET with the request line's target (a proxy sees the whole URL)."""

    def do_GET(self) -> None:
        body = self.path.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return None


@pytest.fixture
def echo() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


def _without_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


def test_a_proxy_from_the_environment_is_honoured(
    echo: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without_proxies(monkeypatch)
    monkeypatch.setenv("HTTP_PROXY", echo)
    url = f"http://proxied-{uuid.uuid4().hex}.invalid/v2.1/servers"
    reply = RequestsTransport().send(Request("GET", url, timeout=5))
    assert (reply.status, reply.text) == (200, url)  # the proxy was asked for the whole URL


def test_the_environment_is_read_once_per_origin_not_per_call(
    echo: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without_proxies(monkeypatch)
    transport = RequestsTransport()
    assert transport.send(Request("GET", f"{echo}/first", timeout=5)).text == "/first"
    with socket.socket() as sock:  # a proxy nobody listens on, set after the first call
        sock.bind(("127.0.0.1", 0))
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{sock.getsockname()[1]}")
    assert transport.send(Request("GET", f"{echo}/second", timeout=5)).text == "/second"
