"""The wire under every client: a request and a reply as plain dataclasses.

``RequestsTransport`` sends them with one ``requests.Session`` (a pool of
kept-alive connections per client) and ``verify=tls.verify()``; unit tests
send them to ``saphira.clients.fake.FakeTransport`` instead. ``Routed``, every
client's default, sends a request for one of this process's own listeners to
its application without a socket (``saphira.clients.inprocess``, registered by
``saphira up`` alone with ``serve_locally``) and any other to ``requests``. A connection
that cannot be made or breaks off is a ``TransportError``, never a
``requests`` exception: nothing above this module imports ``requests``.

The environment (HTTP(S)_PROXY, NO_PROXY, REQUESTS_CA_BUNDLE, ~/.netrc) is
honoured as ``requests`` (and keystoneauth) would, but read once per process
and origin (``_environment``) instead of on every call: ``requests``' own
look-up cost ~2.6% of a build's CPU. A process started with other proxy
settings sees them; a change to ``os.environ`` after its first call to a
service does not (the services never change their own environment).
"""

from __future__ import annotations

import functools
import json as jsonlib
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

import requests
import requests.utils

from saphira import exception
from saphira.clients import tls

Params = list[tuple[str, str]]


class TransportError(exception.ServiceUnavailable):
    """No answer: the connection was refused, timed out or broke off.

    ``retryable`` is False when the service may have acted and was only slow
    to answer (a read timeout): waiting that long again would not help.
    """

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable


@dataclass(frozen=True)
class Request:
    method: str
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    params: Params | None = None
    json: Any = None
    data: Iterable[bytes] | None = None  # a streamed body (uploads); never retried
    stream: bool = False  # read the reply's body lazily (downloads)
    timeout: float = 30


def _nothing() -> None:
    return None


@dataclass
class Reply:
    """A service's answer; ``chunks`` is set instead of ``content`` when streamed."""

    status: int
    headers: Mapping[str, str] = field(default_factory=dict)
    content: bytes = b""
    chunks: Iterator[bytes] | None = None
    closer: Callable[[], None] = _nothing

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def header(self, name: str) -> str | None:
        """A header's value, whatever its case."""
        wanted = name.lower()
        return next((v for k, v in self.headers.items() if k.lower() == wanted), None)

    def json(self) -> Any:
        """The JSON body; ValueError when there is none."""
        return jsonlib.loads(self.content)

    def close(self) -> None:
        self.closer()


class Transport(Protocol):
    def send(self, request: Request) -> Reply: ...


@dataclass(frozen=True)
class _Environment:
    """What ``requests`` would take from the environment for one origin."""

    proxies: dict[str, str]
    ca_bundle: str | None
    netrc_auth: tuple[str, str] | None


@functools.cache
def _environment(origin: str) -> _Environment:
    """Looked up once per process and ``scheme://host:port``."""
    ca_bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
    return _Environment(
        requests.utils.get_environ_proxies(origin),
        ca_bundle or None,
        requests.utils.get_netrc_auth(origin),
    )


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/"


class RequestsTransport:
    """``requests`` with one session: connections are pooled and kept alive.

    The session does not read the environment itself (``trust_env = False``):
    ``send`` hands it the environment's settings remembered by ``_environment``.
    """

    def __init__(self, session: requests.Session | None = None) -> None:
        self.session = session or requests.Session()
        self.session.trust_env = False

    def send(self, request: Request) -> Reply:
        environment = _environment(_origin(request.url))
        verify = tls.verify()
        if verify is True and environment.ca_bundle is not None:
            verify = environment.ca_bundle
        try:
            response = self.session.request(
                request.method, request.url, headers=dict(request.headers),
                params=request.params, json=request.json, data=request.data,
                stream=request.stream, timeout=request.timeout, verify=verify,
                proxies=dict(environment.proxies), auth=environment.netrc_auth,
            )  # fmt: skip
        except requests.ConnectionError as error:  # refused, reset, or no connection in time
            raise TransportError(str(error)) from None
        except requests.RequestException as error:  # a read timeout, a bad URL...
            raise TransportError(str(error), retryable=False) from None
        headers = dict(response.headers)
        if request.stream and response.status_code < 400:  # a refusal's body is read at once
            return Reply(response.status_code, headers, chunks=_chunks(response),
                         closer=response.close)  # fmt: skip
        return Reply(response.status_code, headers, response.content)


def _chunks(response: requests.Response, size: int = 1024 * 1024) -> Iterator[bytes]:
    try:
        yield from response.iter_content(size)
    except requests.RequestException as error:
        raise TransportError(f"the answer broke off: {error}") from None
    finally:
        response.close()


# This process's own listeners served in process (saphira up's), by origin.
_local: dict[str, Transport] = {}


def origin_of(url: str) -> str:
    """``scheme://host:port`` of a URL, lower case."""
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0].split('?', 1)[0]}".lower()


def serve_locally(origin: str, transport: Transport) -> None:
    """Send this process's requests to ``origin`` through ``transport`` (its own app)."""
    _local[origin.lower()] = transport


def withdraw_local(origin: str) -> None:
    _local.pop(origin.lower(), None)


class Routed:
    """The default transport: a request to one of this process's own listeners goes
    to its application in process (``serve_locally``), any other over ``remote``."""

    def __init__(self, remote: Transport | None = None) -> None:
        self.remote = remote or RequestsTransport()

    def send(self, request: Request) -> Reply:
        if _local:
            local = _local.get(origin_of(request.url))
            if local is not None:
                return local.send(request)
        return self.remote.send(request)


_pools: dict[str, Routed] = {}
_pools_lock = threading.Lock()


def pooled(base_url: str) -> Routed:
    """The process's one transport to ``base_url``: for clients made per request
    (an API acting with each caller's token), which then share its connections."""
    with _pools_lock:
        transport = _pools.get(base_url)
        if transport is None:
            transport = _pools[base_url] = Routed()
        return transport
