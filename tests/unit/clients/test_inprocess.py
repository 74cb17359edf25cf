"""The in-process transport: a Request handed to a WSGI app as cheroot would hand it."""

from __future__ import annotations

import contextvars
import json
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import pytest
from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira import exception
from saphira.api.wsgi.app import Application
from saphira.api.wsgi.app import Request as AppRequest
from saphira.api.wsgi.body import json_body, json_response, read_body
from saphira.clients.base import ServiceClient
from saphira.clients.fake import FakeTransport
from saphira.clients.inprocess import WSGITransport
from saphira.clients.transport import (
    Request,
    Routed,
    TransportError,
    origin_of,
    serve_locally,
    withdraw_local,
)

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

URL = "http://127.0.0.1:8778"
CALLER: contextvars.ContextVar[str] = contextvars.ContextVar("caller", default="-")


def echo(request: AppRequest) -> Response:
    """What the app was handed, as JSON."""
    env = request.environ
    keys = ("REQUEST_METHOD", "PATH_INFO", "QUERY_STRING", "REMOTE_ADDR", "CONTENT_TYPE",
            "CONTENT_LENGTH", "HTTP_HOST", "HTTP_X_AUTH_TOKEN", "SERVER_PORT",
            "wsgi.url_scheme")  # fmt: skip
    seen: dict[str, Any] = {key: env.get(key) for key in keys}
    seen["body"] = json_body(request) if request.method in {"POST", "PUT"} else None
    seen["caller"] = CALLER.get()
    CALLER.set("the app")
    return json_response(seen, status=201 if request.method == "POST" else 200,
                         headers={"X-Seen": "yes"})  # fmt: skip


def upload(request: AppRequest) -> Response:
    data = read_body(request)
    return json_response({"length": len(data), "head": data[:5].decode(),
                          "content_length": request.environ.get("CONTENT_LENGTH")})  # fmt: skip


def missing(request: AppRequest) -> Response:
    raise exception.NotFound("no such thing")


def broken(request: AppRequest) -> Response:
    raise RuntimeError("a bug")


def app() -> Application:
    rules = [Rule("/echo/<path:rest>", endpoint=lambda r, rest: echo(r)),
             Rule("/upload", endpoint=upload), Rule("/missing", endpoint=missing),
             Rule("/broken", endpoint=broken)]  # fmt: skip
    return Application(rules, lambda e: {"error": {"message": e.message}}, max_body_size=1000)


def test_a_json_call_reaches_the_app_as_off_the_wire() -> None:
    transport = WSGITransport(app(), server_name="placement")
    request = Request("POST", f"{URL}/echo/a%20b?x=1", {"X-Auth-Token": "tok"},
                      params=[("y", "2 3")], json={"a": [1, 2]})  # fmt: skip
    reply = transport.send(request)
    assert reply.status == 201
    assert reply.header("x-seen") == "yes"
    assert reply.header("content-type") == "application/json"
    seen = reply.json()
    assert seen["REQUEST_METHOD"] == "POST"
    assert seen["PATH_INFO"] == "/echo/a b"
    assert seen["QUERY_STRING"] == "x=1&y=2+3"
    assert seen["REMOTE_ADDR"] == "127.0.0.1"
    assert seen["CONTENT_TYPE"] == "application/json"
    assert seen["CONTENT_LENGTH"] == str(len(json.dumps({"a": [1, 2]})))
    assert seen["HTTP_HOST"] == "127.0.0.1:8778"
    assert seen["HTTP_X_AUTH_TOKEN"] == "tok"
    assert seen["SERVER_PORT"] == "8778"
    assert seen["wsgi.url_scheme"] == "http"
    assert seen["body"] == {"a": [1, 2]}


def test_the_app_runs_in_a_context_of_its_own() -> None:
    CALLER.set("the caller")
    reply = WSGITransport(app()).send(Request("GET", f"{URL}/echo/x"))
    assert reply.json()["caller"] == "-"  # as a fresh worker thread sees it
    assert CALLER.get() == "the caller"  # and what the app set stays there


def chunks(*parts: bytes) -> Iterator[bytes]:
    yield from parts


def test_a_streamed_upload_is_read_as_a_chunked_body() -> None:
    request = Request("PUT", f"{URL}/upload", data=chunks(b"hello", b" ", b"world" * 10))
    reply = WSGITransport(app()).send(request)
    assert reply.json() == {"length": 56, "head": "hello", "content_length": None}


def test_an_upload_over_the_apps_limit_is_refused_by_the_app() -> None:
    request = Request("PUT", f"{URL}/upload", data=chunks(*[b"x" * 300] * 4))
    assert WSGITransport(app()).send(request).status == 413


def test_a_streamed_answer_is_pulled_as_the_caller_reads() -> None:
    made: list[bytes] = []
    closed: list[bool] = []

    class Body:
        def __iter__(self) -> Iterator[bytes]:
            for part in (b"one", b"two", b"three"):
                made.append(part)
                yield part

        def close(self) -> None:
            closed.append(True)

    def download(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        start_response("200 OK", [("Content-Type", "application/octet-stream")])
        return Body()

    reply = WSGITransport(download).send(Request("GET", f"{URL}/file", stream=True))
    assert reply.status == 200 and reply.content == b""
    assert reply.chunks is not None
    assert made == [b"one"]  # the head needed only the first chunk
    assert next(reply.chunks) == b"one"
    assert made == [b"one"]
    assert list(reply.chunks) == [b"two", b"three"]
    assert closed == [True]


def test_a_refused_stream_is_read_at_once() -> None:
    reply = WSGITransport(app()).send(Request("GET", f"{URL}/missing", stream=True))
    assert reply.status == 404 and reply.chunks is None
    assert reply.json() == {"error": {"message": "no such thing"}}


def raw_failure(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
    raise RuntimeError("the app itself broke")


def test_an_app_that_raises_answers_500_as_cheroot_would() -> None:
    reply = WSGITransport(raw_failure).send(Request("GET", f"{URL}/x"))
    assert reply.status == 500
    assert reply.content == b"Internal Server Error"
    assert WSGITransport(app()).send(Request("GET", f"{URL}/broken")).status == 500


def test_a_stream_that_breaks_off_is_a_transport_error() -> None:
    def breaking(environ: WSGIEnvironment, start_response: StartResponse) -> Iterator[bytes]:
        start_response("200 OK", [])
        yield b"part"
        raise OSError("disk gone")

    reply = WSGITransport(breaking).send(Request("GET", f"{URL}/file", stream=True))
    assert reply.chunks is not None
    assert next(reply.chunks) == b"part"
    with pytest.raises(TransportError, match="broke off"):
        next(reply.chunks)


def test_a_head_over_the_limit_gets_no_answer_and_no_retry() -> None:
    transport = WSGITransport(app(), max_header_size=1024)
    with pytest.raises(TransportError) as raised:
        transport.send(Request("GET", f"{URL}/echo/x", {"X-Big": "b" * 2000}))
    assert raised.value.retryable is False
    assert transport.send(Request("GET", f"{URL}/echo/x", {"X-Small": "s"})).status == 200


def test_an_answer_later_than_the_timeout_is_a_read_timeout() -> None:
    now = [0.0]

    def slow(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        now[0] += 31
        start_response("200 OK", [])
        return [b"late"]

    with pytest.raises(TransportError) as raised:
        WSGITransport(slow, clock=lambda: now[0]).send(Request("GET", f"{URL}/x", timeout=30))
    assert raised.value.retryable is False


def test_only_this_process_listeners_go_in_process() -> None:
    remote = FakeTransport()
    remote.reply("GET", "/echo/elsewhere", json={"from": "the wire"})
    routed = Routed(remote)
    serve_locally("HTTP://127.0.0.1:8778", WSGITransport(app()))
    try:
        assert routed.send(Request("GET", f"{URL}/echo/here")).json()["PATH_INFO"] == "/echo/here"
        other = Request("GET", "http://127.0.0.1:9999/echo/elsewhere")
        assert routed.send(other).json() == {"from": "the wire"}
    finally:
        withdraw_local("http://127.0.0.1:8778")
    remote.reply("GET", "/echo/here", json={"from": "the wire"})
    assert routed.send(Request("GET", f"{URL}/echo/here")).json() == {"from": "the wire"}
    assert len(remote.sent) == 2


def test_a_client_keeps_its_error_mapping_in_process() -> None:
    serve_locally(URL, WSGITransport(app()))
    try:
        client = ServiceClient(URL, lambda: "the-token")  # the default transport
        assert client.call("GET", "/echo/t")["HTTP_X_AUTH_TOKEN"] == "the-token"
        with pytest.raises(exception.NotFound):
            client.call("GET", "/missing")
    finally:
        withdraw_local(URL)


@pytest.mark.parametrize(
    ("url", "origin"),
    [("http://127.0.0.1:8778/allocations/x?y=1", "http://127.0.0.1:8778"),
     ("https://[::1]:9292", "https://[::1]:9292"), ("HTTP://Host:1?q", "http://host:1")],
)  # fmt: skip
def test_the_origin_of_a_url(url: str, origin: str) -> None:
    assert origin_of(url) == origin
