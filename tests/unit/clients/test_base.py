"""The base client: headers, the shared status mapping, bounded retries, the fake wire."""

from __future__ import annotations

import pytest

from saphira import exception
from saphira.clients.base import ServiceClient
from saphira.clients.fake import FakeTransport
from saphira.clients.transport import Reply, Request, TransportError

BASE = "http://svc.test/v1"


class Pauses(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def _client(wire: FakeTransport, pauses: Pauses | None = None) -> ServiceClient:
    return ServiceClient(BASE, lambda: "tok", service_token=lambda: "svc", transport=wire,
                         sleep=pauses if pauses is not None else Pauses())  # fmt: skip


def test_a_call_carries_both_tokens_and_its_query() -> None:
    wire = FakeTransport()
    wire.reply("GET", "/v1/things", json={"things": []})
    assert _client(wire).call("GET", "/things", params=[("a", "1"), ("a", "2")]) == {"things": []}
    [sent] = wire.sent
    assert sent.headers["X-Auth-Token"] == "tok" and sent.headers["X-Service-Token"] == "svc"
    assert wire.paths() == ["GET /v1/things?a=1&a=2"]


def test_an_empty_answer_is_none_and_a_dict_query_is_pairs() -> None:
    wire = FakeTransport()
    wire.reply("DELETE", "/v1/things/x", status=204)
    assert _client(wire).call("DELETE", "/things/x", params={"force": True}) is None
    assert wire.sent[0].params == [("force", "True")]


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, exception.BadRequest),
        (401, exception.Unauthorized),
        (403, exception.Forbidden),
        (404, exception.NotFound),
        (409, exception.Conflict),
        (413, exception.PayloadTooLarge),
        (503, exception.ServiceUnavailable),
        (500, exception.SaphiraError),
    ],
)
def test_a_refusal_keeps_its_status(status: int, kind: type[exception.SaphiraError]) -> None:
    wire = FakeTransport()
    wire.reply("POST", "/v1/things", status=status, content=b"no, because")
    with pytest.raises(kind) as raised:
        _client(wire).call("POST", "/things", {"x": 1})
    assert raised.value.code == status
    assert raised.value.message == f"service: {status} no, because"


def test_an_idempotent_call_is_retried_after_a_failed_connection() -> None:
    wire, pauses = FakeTransport(), Pauses()
    wire.refuse_connection("GET", "/v1/things", times=2)
    wire.reply("GET", "/v1/things", json={"ok": True})
    assert _client(wire, pauses).call("GET", "/things") == {"ok": True}
    assert len(wire.sent) == 3 and pauses == [0.1, 0.2]


def test_retries_are_bounded_then_the_service_is_unavailable() -> None:
    wire = FakeTransport()
    wire.refuse_connection("PUT", "/v1/things/x", times=5)
    with pytest.raises(exception.ServiceUnavailable, match=r"^service unreachable: Connection"):
        _client(wire).call("PUT", "/things/x", {"x": 1})
    assert len(wire.sent) == 3


def test_a_call_that_timed_out_waiting_is_not_retried() -> None:
    wire = FakeTransport()
    wire.reply("GET", "/v1/slow", json={})
    wire.routes[("GET", "/v1/slow")].insert(0, TransportError("read timed out", retryable=False))
    with pytest.raises(exception.ServiceUnavailable, match="read timed out"):
        _client(wire).call("GET", "/slow")
    assert len(wire.sent) == 1


def test_a_503_is_retried_and_the_last_one_raised() -> None:
    wire = FakeTransport()
    wire.reply("GET", "/v1/things", status=503, content=b"busy")
    with pytest.raises(exception.ServiceUnavailable, match="service: 503 busy"):
        _client(wire).call("GET", "/things")
    assert len(wire.sent) == 3 and wire.closed == 3


def test_a_post_is_sent_once() -> None:
    wire = FakeTransport()
    wire.refuse_connection("POST", "/v1/things")
    wire.reply("POST", "/v1/things", status=201, json={})
    with pytest.raises(exception.ServiceUnavailable):
        _client(wire).call("POST", "/things", {})
    assert len(wire.sent) == 1


def test_a_streamed_upload_is_not_retried_and_arrives_whole() -> None:
    wire = FakeTransport()
    wire.reply("PUT", "/v1/file", status=503)
    client = _client(wire)
    reply = client.request("PUT", "/file", data=iter([b"ab", b"cd"]), raise_refusal=False)
    assert reply.status == 503 and len(wire.sent) == 1
    assert wire.sent[0].data == [b"abcd"]


def test_a_streamed_answer_comes_in_chunks_and_is_closed() -> None:
    wire = FakeTransport(chunk=3)
    wire.reply("GET", "/v1/file", content=b"abcdefg", headers={"Content-Type": "x/y"})
    reply = _client(wire).request("GET", "/file", stream=True)
    assert list(reply.chunks or []) == [b"abc", b"def", b"g"]
    assert reply.header("content-type") == "x/y"
    reply.close()
    assert wire.closed == 1


def test_a_handler_answers_from_the_request() -> None:
    wire = FakeTransport()
    wire.handle("POST", "/v1/echo", lambda r: Reply(200, content=str(r.json).encode()))
    assert _client(wire).request("POST", "/echo", json=[1]).text == "[1]"


def test_an_unprogrammed_request_fails_the_test() -> None:
    with pytest.raises(AssertionError, match="nothing programmed for GET /v1/nope"):
        _client(FakeTransport()).call("GET", "/nope")


def test_a_client_without_a_token_sends_none() -> None:
    wire = FakeTransport()
    wire.reply("GET", "/", json={})
    ServiceClient("http://svc.test", transport=wire).call("GET", "/")
    request: Request = wire.sent[0]
    assert "X-Auth-Token" not in request.headers and request.url == "http://svc.test/"
