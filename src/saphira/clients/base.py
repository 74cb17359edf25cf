"""The one base of every client: where, as whom, how long, how often.

A ``ServiceClient`` holds a service's base URL (fixed, or a ``Locator``
such as ``catalog.CatalogURL``, asked per request and refreshed once when
the URL it gave answers 404 or not at all: the service may have moved), a
token provider (called per
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
from typing import Any, Protocol

from saphira import exception
from saphira.clients.errors import error_for
from saphira.clients.transport import (
    Params,
    Reply,
    Request,
    Routed,
    Transport,
    TransportError,
)

TokenProvider = Callable[[], str]
IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
RETRIES = 2
BACKOFF = 0.1  # seconds before the first retry, doubled each time


class Locator(Protocol):
    """Where a service is now."""

    def __call__(self) -> str: ...

    def refresh(self) -> bool:
        """Look again; whether the answer changed."""


class FixedURL:
    """A URL from the configuration (or the all-in-one's own): it never moves."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")

    def __call__(self) -> str:
        return self.url

    def refresh(self) -> bool:
        return False


class ServiceClient:
    """Subclasses name ``service`` (for messages) and add typed methods."""

    service = "service"

    def __init__(
        self,
        base_url: str | Locator,
        token: TokenProvider | None = None,
        *,
        service_token: TokenProvider | None = None,
        timeout: float = 30,
        transport: Transport | None = None,
        retries: int = RETRIES,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.locator: Locator = FixedURL(base_url) if isinstance(base_url, str) else base_url
        self.token = token
        self.service_token = service_token
        self.timeout = timeout
        self.transport: Transport = transport or Routed()
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

        def build() -> Request:
            return Request(
                method, self.url(path), {**self.headers(), **(headers or {})},
                _pairs(params), json, data, stream, self.timeout,
            )  # fmt: skip

        reply = self._located(build, resendable=data is None)
        if raise_refusal and reply.status >= 400:
            reply.close()
            raise self.refusal(reply)
        return reply

    def call(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        """The JSON answer of a call (None when the body is empty)."""
        reply = self.request(method, path, json=body, **kwargs)
        return reply.json() if reply.content else None

    @property
    def base_url(self) -> str:
        return self.locator()

    def url(self, path: str) -> str:
        return (
            self.base_url + path if path.startswith("/") or not path else f"{self.base_url}/{path}"
        )

    def refusal(self, reply: Reply) -> exception.SaphiraError:
        return error_for(reply.status, f"{self.service}: {reply.status} {reply.text[:200]}")

    def unreachable(self, error: TransportError) -> exception.SaphiraError:
        return exception.ServiceUnavailable(f"{self.service} unreachable: {error}")

    def _located(self, build: Callable[[], Request], *, resendable: bool) -> Reply:
        """Sent where the locator says; sent once more where it says after a refresh,
        if the first answer was a 404 or none and the service has moved since."""
        try:
            reply = self._send(build())
        except TransportError as error:
            if not (error.retryable and resendable and self.locator.refresh()):
                raise self.unreachable(error) from None
        else:
            if reply.status != 404 or not resendable or not self.locator.refresh():
                return reply
            reply.close()
        try:
            return self._send(build())
        except TransportError as error:
            raise self.unreachable(error) from None

    def _send(self, request: Request) -> Reply:
        """The reply (after retries); the last TransportError if none came."""
        attempts = 1 + (self.retries if _retryable(request) else 0)
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                reply = self.transport.send(request)
            except TransportError as error:
                if last or not error.retryable:
                    raise
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
