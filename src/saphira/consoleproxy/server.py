"""ConsoleProxy: one console type's static client files and websocket relay."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from websockify.websocketserver import HttpWebSocket

from saphira.consoleproxy import checks
from saphira.consoleproxy.relay import relay
from saphira.db.cell.console_tokens import ConsoleToken, token_hash
from saphira.exception import SaphiraError
from saphira.objects import ConsoleType

LOG = logging.getLogger(__name__)
CONNECT_TIMEOUT = 10.0  # seconds to reach the guest's console server

# token -> its record; raises SaphiraError (ConsoleTokenInvalid) for a bad one.
Authorize = Callable[[str], ConsoleToken]


@dataclass(frozen=True)
class ProxySettings:
    console_type: ConsoleType
    web_root: str | None  # None: no files, only the websocket (the serial proxy)
    allowed_origins: list[str] = field(default_factory=list)
    max_connections_per_token: int = 4
    enforce_session_timeout: bool = False


class _Refused(Exception):
    def __init__(self, status: int, why: str) -> None:
        super().__init__(why)
        self.status, self.why = status, why


class ProxyHandler(SimpleHTTPRequestHandler):
    """GET: the client's files (no listings); a websocket upgrade: check and relay."""

    server: ConsoleProxy
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if checks.bad_path(self.path):
            self._refuse(400, "URI must not start with //")
        elif self.headers.get("Upgrade", "").lower() == "websocket":
            self._websocket()
        elif self.server.settings.web_root is None:
            self.send_error(404, "Only a websocket is served here")
        else:
            super().do_GET()

    def do_HEAD(self) -> None:
        if checks.bad_path(self.path):
            self._refuse(400, "URI must not start with //")
        elif self.server.settings.web_root is None:
            self.send_error(404, "Only a websocket is served here")
        else:
            super().do_HEAD()

    def list_directory(self, path: str | Any) -> None:
        self.send_error(404, "No such file or directory")

    def log_message(self, format: str, *args: Any) -> None:
        LOG.info("%s: %s", self.address_string(), format % args)

    def _refuse(self, status: int, why: str) -> None:
        """An empty answer (a websocket client must read no frame from it)."""
        LOG.info("console %s refused (%s): %s", self.server.settings.console_type, status, why)
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _websocket(self) -> None:
        try:
            token, record = self._admit()
        except _Refused as refused:
            self._refuse(refused.status, refused.why)
            return
        key = token_hash(token)
        if not self.server.connections.acquire(key):
            self._refuse(429, "too many connections for this token")
            return
        try:
            self._connect_and_relay(record)
        finally:
            self.server.connections.release(key)

    def _admit(self) -> tuple[str, ConsoleToken]:
        settings = self.server.settings
        token = checks.token_of(self.path, self.headers.get("Cookie"))
        if not token:
            raise _Refused(403, "no token")
        try:
            record = self.server.authorize(token)
        except SaphiraError as error:
            raise _Refused(403, error.message) from None
        except Exception:  # the databases are down or not made: refuse, never drop
            LOG.exception("console token lookup failed")
            raise _Refused(503, "the console tokens cannot be read now") from None
        if record.console_type != settings.console_type.value:
            raise _Refused(403, f"a {record.console_type} token")
        origin, host = self.headers.get("Origin"), self.headers.get("Host")
        if not checks.origin_allowed(origin, host, settings.allowed_origins,
                                     settings.console_type):  # fmt: skip
            raise _Refused(403, f"origin {origin!r} is not allowed")
        return token, record

    def _connect_and_relay(self, record: ConsoleToken) -> None:
        try:
            target = socket.create_connection((record.host, record.port), CONNECT_TIMEOUT)
        except OSError as error:
            self._refuse(502, f"cannot reach {record.host}:{record.port}: {error}")
            return
        with target:
            target.settimeout(None)
            websocket = HttpWebSocket(self)
            websocket.select_subprotocol = _binary
            try:
                websocket.accept(self.request, self.headers)
            except Exception as error:  # websockify raises bare Exceptions for bad headers
                self._refuse(400, str(error))
                return
            self.close_connection = True
            deadline = record.expires if self.server.settings.enforce_session_timeout else None
            self.server.track(self.request)
            try:
                why = relay(websocket, target, deadline, self.server.stopping)
            except OSError as error:
                why = str(error)
            finally:
                self.server.untrack(self.request)
            LOG.info("console of %s closed: %s", record.instance_uuid, why)
            _close(websocket)


def _binary(protocols: list[str]) -> str:
    """noVNC offers "binary" (older clients "base64" too): take binary, or none."""
    return next((p for p in protocols if p.strip() == "binary"), "")


def _close(websocket: Any) -> None:
    with contextlib.suppress(Exception):  # the peer may be gone already
        websocket.close()


class ConsoleProxy(ThreadingHTTPServer):
    """The server, and the listener ``saphira up``'s runner starts and stops."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(
        self, address: tuple[str, int], authorize: Authorize, settings: ProxySettings
    ) -> None:
        handler = partial(ProxyHandler, directory=settings.web_root or os.devnull)
        super().__init__(address, handler, bind_and_activate=False)
        self.authorize, self.settings = authorize, settings
        self.connections = checks.ConnectionCounter(settings.max_connections_per_token)
        self.stopping = threading.Event()
        self._serving = False
        self._state = threading.Lock()
        self._open: set[socket.socket] = set()
        self.on_stop: list[Callable[[], None]] = []  # e.g. the directory's engines

    def prepare(self) -> None:
        """Bind and listen (OSError if the port is taken); serve() accepts."""
        try:
            self.server_bind()
            self.server_activate()
        except OSError:
            self.server_close()
            raise

    def serve(self) -> None:
        with self._state:
            if self.stopping.is_set():
                return
            self._serving = True
        self.serve_forever(poll_interval=0.5)

    def stop(self) -> None:
        """Stop accepting and end every open console session."""
        with self._state:
            self.stopping.set()
            serving = self._serving
        if serving:
            self.shutdown()
        self.server_close()
        with self._state:
            for sock in list(self._open):
                _shut(sock)
        for done in self.on_stop:
            done()
        self.on_stop.clear()

    def track(self, sock: socket.socket) -> None:
        with self._state:
            self._open.add(sock)

    def untrack(self, sock: socket.socket) -> None:
        with self._state:
            self._open.discard(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
