"""The common WSGI layer: routing, faults, body limits, request ids in logs."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira import exception
from saphira.api.wsgi import (
    LOG_FORMAT,
    Application,
    Request,
    RequestIdMiddleware,
    RequestLogFilter,
    json_body,
    json_response,
    logcontext,
    set_identity,
    validate,
)
from tests.wsgi import Client

LOG = logging.getLogger("saphira.test.wsgi")


def _echo(request: Request) -> Response:
    body = json_body(request)
    validate(body, {"type": "object", "properties": {"n": {"type": "integer"}}})
    return json_response(body, status=201)


def _boom(request: Request) -> Response:
    raise RuntimeError("secret internals")


def _hello(request: Request, name: str) -> Response:
    set_identity("u-1", "p-1")
    LOG.warning("hello %s", name)
    if name == "missing":
        raise exception.NotFound("Could not find thing: missing.")
    return json_response({"hello": name})


def _fault(error: exception.SaphiraError) -> dict[str, Any]:
    return {"fault": {"code": error.code, "message": error.message}}


@pytest.fixture
def client() -> Client:
    app = Application(
        [
            Rule("/echo", methods=["POST"], endpoint=_echo),
            Rule("/boom", methods=["GET"], endpoint=_boom),
            Rule("/hello/<name>", methods=["GET"], endpoint=_hello),
        ],
        _fault,
        max_body_size=100,
    )
    return Client(RequestIdMiddleware(app))


def test_every_response_has_a_fresh_request_id(client: Client) -> None:
    first = client.get("/hello/a")
    second = client.get("/nowhere")
    ids = {first.headers["X-OpenStack-Request-ID"], second.headers["X-OpenStack-Request-ID"]}
    assert len(ids) == 2 and all(i.startswith("req-") for i in ids)
    assert second.status_code == 404 and second.json["fault"]["code"] == 404


def test_errors_go_through_the_formatter(client: Client) -> None:
    missing = client.get("/hello/missing")
    assert missing.status_code == 404
    assert missing.json == {"fault": {"code": 404, "message": "Could not find thing: missing."}}
    wrong = client.put("/echo")
    assert wrong.status_code == 405 and wrong.headers["Allow"] == "POST"


def test_unexpected_error_is_500_without_internals(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR):
        response = client.get("/boom")
    assert response.status_code == 500
    text = response.get_data(as_text=True)
    assert "secret" not in text and "Traceback" not in text
    assert "secret internals" in caplog.text  # the operator still sees it


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"{bad", 400),
        (b"", 400),
        (b'{"n": "x"}', 400),
        (b"{" + b" " * 200 + b"}", 413),
        (b"\xff\xfe{", 400),
        (b"[" * 40 + b"]" * 40, 400),
    ],
)
def test_json_bodies(client: Client, data: bytes, code: int) -> None:
    response = client.post("/echo", data=data, content_type="application/json")
    assert response.status_code == code
    assert response.json["fault"]["code"] == code
    assert client.post("/echo", json={"n": 1}).json == {"n": 1}


def test_log_lines_name_request_user_and_project(client: Client) -> None:
    records: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(self.format(record))

    handler = Collect()
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    handler.addFilter(RequestLogFilter())
    loggers = [LOG, logging.getLogger("saphira.api.wsgi.request_id")]
    level = loggers[1].level
    for logger in loggers:
        logger.addHandler(handler)
    loggers[1].setLevel(logging.INFO)
    try:
        response = client.get("/hello/world")
        LOG.warning("outside")
    finally:
        loggers[1].setLevel(level)
        for logger in loggers:
            logger.removeHandler(handler)
    request_id = response.headers["X-OpenStack-Request-ID"]
    assert f"[{request_id} u-1 p-1] hello world" in records[0]
    assert f"[{request_id} u-1 p-1] GET /hello/world status: 200" in records[1]
    assert "[- - -] outside" in records[2]


def test_an_identity_set_outside_a_request_is_not_kept() -> None:
    """The token middleware called without a bound request (a test client, a library)
    must not leave its caller on every later line of the thread."""
    set_identity("u-9", "p-9")
    assert logcontext.current() == logcontext.LogIdentity()
