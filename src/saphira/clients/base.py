"""The one base of every client: where, as whom, how long, how often.

A ``ServiceClient`` holds a service's base URL, a token provider (called per
request, so a renewed service token is picked up), optionally a second one
sent as ``X-Service-Token`` (the service vouching for a user's token that
may expire meanwhile), a timeout and a transport. ``request`` retries an
idempotent call (GET, HEAD, PUT, DELETE without a streamed body) whose
connection failed (not one that timed out waiting for the answer) or which
got a 503, at most ``retries`` more times with a
short growing pause, as keystoneauth's ``connect_retries`` and
``status_code_retries`` do; a POST is sent once. A refusal (status >= 400)
is raised as ``refusal(reply)`` builds it: by default the shared
status -> ``saphira.exception`` table with ``<service>: <status> <body>``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from saphira import exception
from saphira.clients.errors import error_for
from saphira.clients.transport import (
    Params,
    Reply,
    Request,
    RequestsTransport,
    Transport,
    TransportError,
)

TokenProvider = Callable[[], str]
IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
RETRIES = 2
BACKOFF = 0.1  # seconds before the first retry, doubled each time


class ServiceClient:
    """Subclasses name ``service`` (for messages) and add typed methods."""

    service = "service"

    def __init__(
        self,
        base_url: str,
        token: TokenProvider | None = None,
        *,
        service_token: TokenProvider | None = None,
        timeout: float = 30,
        transport: Transport | None = None,
        retries: int = RETRIES,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.service_token = service_token
        self.timeout = timeout
        self.transport: Transport = transport or RequestsTransport()
        self.retries = retries
        self.sleep = sleep

    def headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self.token is not None:
            headers["X-Auth-Token"] = self.token()
        if self.service_token is not None:
            headers["X-Service-Token"] = self.service_token()
        return headers

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Params | Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        data: Iterable[bytes] | None = None,
        stream: bool = False,
        raise_refusal: bool = True,
    ) -> Reply:
        """Send ``method`` to ``base_url + path``; a refusal is raised unless told not to."""
        request = Request(
            method, self.url(path), {**self.headers(), **(headers or {})},
            _pairs(params), json, data, stream, self.timeout,
        )  # fmt: skip
        reply = self._send(request)
        if raise_refusal and reply.status >= 400:
            reply.close()
            raise self.refusal(reply)
        return reply

    def call(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        """The JSON answer of a call (None when the body is empty)."""
        reply = self.request(method, path, json=body, **kwargs)
        return reply.json() if reply.content else None

    def url(self, path: str) -> str:
        return (
            self.base_url + path if path.startswith("/") or not path else f"{self.base_url}/{path}"
        )

    def refusal(self, reply: Reply) -> exception.SaphiraError:
        return error_for(reply.status, f"{self.service}: {reply.status} {reply.text[:200]}")

    def unreachable(self, error: TransportError) -> exception.SaphiraError:
        return exception.ServiceUnavailable(f"{self.service} unreachable: {error}")

    def _send(self, request: Request) -> Reply:
        attempts = 1 + (self.retries if _retryable(request) else 0)
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                reply = self.transport.send(request)
            except TransportError as error:
                if last or not error.retryable:
                    raise self.unreachable(error) from None
            else:
                if reply.status != 503 or last:
                    return reply
                reply.close()
            self.sleep(BACKOFF * 2**attempt)
        raise AssertionError("unreachable")


def _retryable(request: Request) -> bool:
    return request.method in IDEMPOTENT and request.data is None


def _pairs(params: Params | Mapping[str, Any] | None) -> Params | None:
    if params is None or isinstance(params, list):
        return params
    return [(key, str(value)) for key, value in params.items()] or None
