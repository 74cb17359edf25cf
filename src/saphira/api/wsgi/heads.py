"""Connections owned by the selector thread until their request head is in.

cheroot hands every new connection straight to a worker thread, which then
blocks reading the request line: 200 idle connections, or a few sending half
a header a byte at a time, held a 16-thread pool for minutes. ``HeadFirst``
replaces cheroot's connection manager: its one thread accepts, does the TLS
handshake and reads without blocking into a buffer per connection, and a
worker gets the connection only once a whole head (up to the blank line) has
arrived, reading it from that buffer. The same holds for a kept-alive
connection waiting for its next request. A connection is closed when it stays
silent ``idle_timeout`` seconds, when its head is not complete
``header_timeout`` seconds after its first byte, when the head outgrows
``max_header_size``, or at accept when its address already holds
``max_per_client`` connections.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import ssl
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from cheroot.server import HTTPConnection

from saphira.api.wsgi.prefixed import prefixed_makefile

_HEAD_END = (b"\r\n\r\n", b"\n\n")
_WAKE = object()  # the selector's key data for the stop signal's socket


@dataclass(frozen=True)
class Limits:
    idle_timeout: int
    header_timeout: int
    max_header_size: int
    max_per_client: int


@dataclass
class _Waiting:
    """A connection whose next request head is still arriving."""

    sock: socket.socket
    addr: tuple[Any, ...]
    deadline: float
    conn: HTTPConnection | None = None  # a kept-alive connection coming back
    handshaking: bool = False
    buf: bytearray = field(default_factory=bytearray)


class HeadFirst:
    """cheroot's ConnectionManager interface (run, stop, put, close) over our own selector."""

    def __init__(self, server: Any, limits: Limits) -> None:
        self.server = server
        self.limits = limits
        self._selector = selectors.DefaultSelector()
        self._lock = threading.Lock()  # guards the selector's map and the counts
        self._per_client: Counter[str] = Counter()
        self._stop_requested = False
        self._serving = False
        self._last_expiry = time.monotonic()
        self._selector.register(server.socket, selectors.EVENT_READ, server)
        # stop() writes here, so the loop ends now, not at its select's timeout
        # (cheroot's expiration_interval, 0.5 s for each server stopped).
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._selector.register(self._wake_r, selectors.EVENT_READ, _WAKE)

    # -- what cheroot's server calls -------------------------------------------------

    can_add_keepalive_connection = True  # our own limits bound what waits

    def run(self, expiration_interval: float) -> None:
        self._serving = True
        try:
            while not self._stop_requested:
                self._turn(expiration_interval)
        finally:
            self._serving = False

    def stop(self) -> None:
        self._stop_requested = True
        with contextlib.suppress(OSError):  # closed already: the loop has ended
            self._wake_w.send(b"\0")
        while self._serving:
            time.sleep(0.01)

    def put(self, conn: HTTPConnection) -> None:
        """A worker is done with a kept-alive connection: wait for its next head here."""
        sock = conn.socket
        if conn.rfile.has_data() or (isinstance(sock, ssl.SSLSocket) and sock.pending()):
            self.server.process_conn(conn)  # the next request is already here
            return
        sock.setblocking(False)
        deadline = time.monotonic() + self.limits.idle_timeout
        self._register(_Waiting(sock, (conn.remote_addr, conn.remote_port), deadline, conn))

    def close(self) -> None:
        with self._lock:
            waiting = [k.data for k in self._selector.get_map().values()]
            self._selector.close()
        self._wake_r.close()
        self._wake_w.close()
        for item in waiting:
            if isinstance(item, _Waiting):
                self._drop(item, unregister=False)

    def release(self, address: str | None) -> None:
        """A connection of ``address`` closed (called from any thread)."""
        if address is None:
            return
        with self._lock:
            self._per_client[address] -= 1
            if self._per_client[address] <= 0:
                del self._per_client[address]

    # -- the loop --------------------------------------------------------------------

    def _turn(self, interval: float) -> None:
        try:
            ready = self._selector.select(timeout=interval)
        except OSError:
            return
        for key, _ in ready:
            if key.data is _WAKE:
                continue  # run() sees the stop request next
            if key.data is self.server:
                self._accept()
            else:
                self._read(key.data)
        now = time.monotonic()
        if now - self._last_expiry >= interval:
            self._last_expiry = now
            self._expire(now)

    def _register(self, item: _Waiting) -> None:
        with self._lock:
            self._selector.register(item.sock, selectors.EVENT_READ, item)

    def _unregister(self, item: _Waiting) -> None:
        with self._lock:
            self._selector.unregister(item.sock)

    def _accept(self) -> None:
        try:
            sock, addr = self.server.socket.accept()
        except OSError:  # the client went away, or no more descriptors: try again later
            return
        with self._lock:
            if self._per_client[addr[0]] >= self.limits.max_per_client:
                sock.close()
                return
            self._per_client[addr[0]] += 1
        sock.setblocking(False)
        item = _Waiting(sock, addr, time.monotonic() + self.limits.idle_timeout)
        adapter = self.server.ssl_adapter
        if adapter is not None:
            item.sock = adapter.context.wrap_socket(
                sock, server_side=True, do_handshake_on_connect=False
            )
            item.handshaking = True
        self._register(item)

    def _read(self, item: _Waiting) -> None:
        try:
            if item.handshaking:
                item.sock.do_handshake()  # type: ignore[attr-defined]
                item.handshaking = False
            self._receive(item)
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError):
            return
        except (OSError, EOFError):  # includes ssl.SSLError: plain HTTP on a TLS port
            self._drop(item)
            return
        if any(end in item.buf for end in _HEAD_END):
            self._dispatch(item)
        elif len(item.buf) > self.limits.max_header_size:
            self._drop(item)

    def _receive(self, item: _Waiting) -> None:
        while True:
            chunk = item.sock.recv(65536)
            if not chunk:
                raise EOFError
            if not item.buf:
                item.deadline = time.monotonic() + self.limits.header_timeout
            item.buf += chunk
            pending = item.sock.pending() if isinstance(item.sock, ssl.SSLSocket) else 0
            if not pending or len(item.buf) > self.limits.max_header_size:
                return

    def _dispatch(self, item: _Waiting) -> None:
        self._unregister(item)
        item.sock.settimeout(self.server.timeout)
        conn = item.conn
        makefile = prefixed_makefile(bytes(item.buf))
        if conn is None:
            conn = self.server.ConnectionClass(self.server, item.sock, makefile)
            conn.remote_addr, conn.remote_port = item.addr[0], item.addr[1]
            adapter = self.server.ssl_adapter
            conn.ssl_env = adapter.get_environ(item.sock) if adapter is not None else {}
        else:
            conn.rfile = makefile(item.sock, "rb", conn.rbufsize)
        conn.last_used = time.time()
        self.server.process_conn(conn)

    def _expire(self, now: float) -> None:
        with self._lock:
            late = [
                key.data
                for key in self._selector.get_map().values()
                if isinstance(key.data, _Waiting) and key.data.deadline <= now
            ]
        for item in late:
            self._drop(item)

    def _drop(self, item: _Waiting, unregister: bool = True) -> None:
        if unregister:
            with contextlib.suppress(KeyError, ValueError):
                self._unregister(item)
        if item.conn is not None:
            item.conn.close()  # releases its address (FrontConnection.close)
            return
        try:
            item.sock.close()
        finally:
            self.release(item.addr[0])
