"""A request handed to this process's own WSGI application: no socket, no ``requests``.

``saphira up`` serves every API and runs every agent in one process; a call
from one of its services to another (the scheduler to placement, the compute
API to the image service, an agent to the network API) would otherwise be
prepared by ``requests``, cross a loopback socket and be parsed by cheroot
before reaching an application of the same process. ``WSGITransport`` builds
the environ cheroot would (PEP 3333, ISO-8859-1 ``PATH_INFO``, ``REMOTE_ADDR``
127.0.0.1), calls the application on the caller's thread in a fresh
``contextvars.Context`` (as a worker thread starts a request: the caller's
request id and log identity neither leak in nor are changed), and collects
its answer into a ``Reply``. What the front server gave for free is kept:

* the head limit (``[wsgi] max_header_size``): a longer head is refused as
  the front server does, by no answer (a ``TransportError``, not retried);
* bodies: a JSON body with its ``CONTENT_LENGTH``; a streamed upload as a
  chunked one (``wsgi.input_terminated``, no length), read as the app reads;
  a streamed answer's chunks are pulled from the app as the caller reads;
* an application that raises answers 500, as cheroot does, or, once a
  streamed answer has begun, breaks off (a ``TransportError``);
* the timeout: the application cannot be interrupted (a slow service makes a
  slow caller, as a blocking HTTP call did), but an answer later than the
  request's timeout is dropped and reported as a read timeout would be.

The application's own middleware (token validation, policy, error shapes,
body-size limits) runs as it does for a request off the wire.
"""

from __future__ import annotations

import contextvars
import io
import json as jsonlib
import logging
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote_to_bytes, urlencode, urlsplit

from saphira.clients.transport import Reply, Request, TransportError

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication, WSGIEnvironment

LOG = logging.getLogger(__name__)
REMOTE_ADDR = "127.0.0.1"
_CONTENT = {"CONTENT-TYPE": "CONTENT_TYPE", "CONTENT-LENGTH": "CONTENT_LENGTH"}


class ChunkedInput(io.RawIOBase):
    """``wsgi.input`` over a streamed upload: read as the application asks."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks = iter(chunks)
        self._buffer = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._buffer:
            chunk = next(self._chunks, None)
            if chunk is None:
                return 0
            self._buffer = bytes(chunk)
        size = min(len(buffer), len(self._buffer))
        buffer[:size] = self._buffer[:size]
        self._buffer = self._buffer[size:]
        return size


class WSGITransport:
    """One application of this process, reached without a socket."""

    def __init__(
        self,
        app: WSGIApplication,
        *,
        server_name: str = "localhost",
        max_header_size: int = 65536,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.server_name = server_name
        self.max_header_size = max_header_size
        self.clock = clock

    def send(self, request: Request) -> Reply:
        environ = self.environ(request)
        started = self.clock()
        context = contextvars.Context()
        head: list[Any] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc: Any = None) -> Any:
            head[:] = [status, headers]
            return _no_write

        try:
            body = context.run(self.app, environ, start_response)
            chunks, first = context.run(_first, body)  # the answer's head is known now
            streamed = request.stream and _status(head) < 400
            if not streamed:
                content = first + b"".join(context.run(_drain, chunks, body))
        except Exception:
            LOG.exception("%s: %s %s failed in process", self.server_name, request.method,
                          environ["PATH_INFO"])  # fmt: skip
            return Reply(500, {"Content-Type": "text/plain"}, b"Internal Server Error")
        if self.clock() - started > request.timeout:
            _close(body)
            raise TransportError(f"{request.url}: no answer in {request.timeout} s",
                                 retryable=False)  # fmt: skip
        headers = _headers(head[1] if head else [])
        if streamed:
            return Reply(_status(head), headers, chunks=_pulled(context, chunks, first, body),
                         closer=lambda: _close(body))  # fmt: skip
        return Reply(_status(head), headers, content)

    def environ(self, request: Request) -> WSGIEnvironment:
        """What cheroot would hand the application for ``request``."""
        url = urlsplit(request.url)
        query = "&".join(q for q in (url.query, urlencode(request.params or [])) if q)
        path = unquote_to_bytes(url.path or "/").decode("iso-8859-1")
        environ: dict[str, Any] = {
            "REQUEST_METHOD": request.method.upper(), "SCRIPT_NAME": "", "PATH_INFO": path,
            "QUERY_STRING": query,
            "REQUEST_URI": (url.path or "/") + (f"?{query}" if query else ""),
            "SERVER_NAME": self.server_name, "SERVER_PORT": str(url.port or ""),
            "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": REMOTE_ADDR, "REMOTE_PORT": "0",
            "HTTP_HOST": url.netloc, "wsgi.version": (1, 0), "wsgi.url_scheme": url.scheme,
            "wsgi.errors": sys.stderr, "wsgi.multithread": True, "wsgi.multiprocess": False,
            "wsgi.run_once": False, "wsgi.input_terminated": False,
        }  # fmt: skip
        body = b""
        if request.data is not None:
            environ["wsgi.input"] = io.BufferedReader(ChunkedInput(request.data))
            environ["wsgi.input_terminated"] = True  # no length: read to the end
        else:
            if request.json is not None:
                body = jsonlib.dumps(request.json, allow_nan=False).encode("utf-8")
                environ["CONTENT_TYPE"] = "application/json"
            environ["wsgi.input"] = io.BytesIO(body)
            if body or request.method.upper() in {"POST", "PUT", "PATCH"}:
                environ["CONTENT_LENGTH"] = str(len(body))
        size = len(request.method) + len(environ["REQUEST_URI"]) + len(url.netloc) + 20
        for name, value in request.headers.items():
            size += len(name) + len(value) + 4
            key = name.upper()
            environ[_CONTENT.get(key) or "HTTP_" + key.replace("-", "_")] = value
        if size > self.max_header_size:
            raise TransportError(f"{request.url}: request head of {size} bytes is over the "
                                 f"limit of {self.max_header_size}", retryable=False)  # fmt: skip
        return environ


def _no_write(_data: bytes) -> None:
    raise NotImplementedError("the write() callable is not supported in process")


def _status(head: list[Any]) -> int:
    return int(str(head[0]).split(" ", 1)[0]) if head else 500


def _headers(pairs: list[tuple[str, str]]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for name, value in pairs:  # repeated headers joined, as requests does
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return headers


def _drain(chunks: Iterator[bytes], body: Iterable[bytes]) -> list[bytes]:
    try:
        return list(chunks)
    finally:
        _close(body)


def _first(body: Iterable[bytes]) -> tuple[Iterator[bytes], bytes]:
    """The answer's iterator and its first chunk: a generator calls start_response
    only when first asked for a chunk."""
    chunks = iter(body)
    return chunks, next(chunks, b"")


def _pulled(
    context: contextvars.Context, chunks: Iterator[bytes], first: bytes, body: Iterable[bytes]
) -> Iterator[bytes]:
    """The rest of a streamed answer, each chunk asked for in the app's context."""
    try:
        if first:
            yield first
        while True:
            try:
                chunk = context.run(next, chunks, None)
            except Exception as error:
                raise TransportError(f"the answer broke off: {error}") from None
            if chunk is None:
                return
            if chunk:
                yield chunk
    finally:
        _close(body)


def _close(body: Any) -> None:
    close = getattr(body, "close", None)
    if close is not None:
        close()
