"""The APIs' HTTP front: idle and slow connections hold no worker thread."""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

from cheroot.ssl.builtin import BuiltinSSLAdapter

from saphira.api.wsgi.front import FrontServer
from saphira.api.wsgi.heads import HeadFirst, Limits
from tests.functional.certs import self_signed

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

HANG = 30.0  # seconds: only detects a hang


def _app(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
    body = b"ok " + environ["wsgi.input"].read()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]


@contextmanager
def serving(limits: Limits, threads: int = 2) -> Iterator[int]:
    server = FrontServer(
        ("127.0.0.1", 0),
        _app,
        numthreads=threads,
        limits=limits,
        shutdown_timeout=1,
        request_queue_size=1024,  # as saphira.service.runner listens
    )
    server.prepare()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield int(server.bind_addr[1])
    finally:
        server.stop()
        thread.join(HANG)


def _ask(port: int, raw: bytes, source: str = "127.0.0.1") -> bytes:
    with socket.create_connection(("127.0.0.1", port), HANG, (source, 0)) as sock:
        sock.sendall(raw)
        return _read_all(sock)


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except ConnectionResetError:
        pass  # closed by the server with our request unread
    return b"".join(chunks)


GET = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
LIMITS = Limits(idle_timeout=60, header_timeout=60, max_header_size=4096, max_per_client=500)


def test_idle_and_half_sent_requests_leave_the_two_workers_free() -> None:
    with serving(LIMITS) as port:
        held = [socket.create_connection(("127.0.0.1", port), HANG) for _ in range(100)]
        for sock in held[::2]:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # never finished
        try:
            assert _ask(port, GET).endswith(b"ok ")
            post = b"POST / HTTP/1.1\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbody"
            assert _ask(port, post).endswith(b"ok body")
        finally:
            for sock in held:
                sock.close()


def test_a_head_that_takes_too_long_or_grows_too_big_is_closed() -> None:
    with serving(Limits(60, 1, 4096, 500)) as port:
        with socket.create_connection(("127.0.0.1", port), HANG) as slow:
            slow.sendall(b"GET / HTTP/1.1\r\n")
            assert _read_all(slow) == b""  # closed after header_timeout, without a worker
        big = b"GET / HTTP/1.1\r\nX: " + b"a" * 8192
        assert _ask(port, big) == b""


def test_an_address_holds_at_most_max_per_client_connections() -> None:
    with serving(Limits(60, 60, 4096, 3)) as port:
        peer = ("127.0.0.1", port)
        held = [socket.create_connection(peer, HANG, ("127.0.0.2", 0)) for _ in range(3)]
        try:
            assert _ask(port, GET, source="127.0.0.2") == b""  # the fourth is closed at once
            assert _ask(port, GET, source="127.0.0.3").endswith(b"ok ")  # others are served
            held.pop().close()
            for _ in range(100):  # the manager hears of the close on its next turn
                if (answer := _ask(port, GET, source="127.0.0.2")) != b"":
                    break
            assert answer.endswith(b"ok ")
        finally:
            for sock in held:
                sock.close()


def test_kept_alive_and_pipelined_requests_are_answered() -> None:
    with serving(LIMITS) as port:
        two = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" + GET
        answer = _ask(port, two)
        assert answer.count(b"HTTP/1.1 200 OK") == 2
        with socket.create_connection(("127.0.0.1", port), HANG) as sock:
            for _ in range(3):
                sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                response = b""
                while not response.endswith(b"\r\n\r\nok "):  # Content-Length: 3
                    response += sock.recv(65536)
                assert response.startswith(b"HTTP/1.1 200 OK")


def test_a_silent_tls_client_does_not_stall_the_others(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    server_limits = Limits(60, 60, 4096, 500)
    server = FrontServer(
        ("127.0.0.1", 0), _app, numthreads=2, limits=server_limits, shutdown_timeout=1,
        request_queue_size=1024,
    )  # fmt: skip
    server.ssl_adapter = BuiltinSSLAdapter(str(cert), str(key))
    server.prepare()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    port = int(server.bind_addr[1])
    silent = [socket.create_connection(("127.0.0.1", port), HANG) for _ in range(20)]
    try:
        context = ssl.create_default_context(cafile=str(cert))
        with (
            socket.create_connection(("127.0.0.1", port), HANG) as raw,
            context.wrap_socket(raw, server_hostname="127.0.0.1") as tls,
        ):
            tls.sendall(GET)
            assert _read_all(tls).endswith(b"ok ")
        assert _ask(port, GET) == b""  # plain HTTP on the TLS port: closed
    finally:
        for sock in silent:
            sock.close()
        server.stop()
        thread.join(HANG)


def test_stop_wakes_the_loop_out_of_its_select() -> None:
    """With an hour between expiries the loop's select never times out in this
    test: only stop()'s wake can end it (each server stopped waited up to
    cheroot's 0.5 s expiration_interval before)."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        heads = HeadFirst(SimpleNamespace(socket=listener), LIMITS)
        loop = threading.Thread(target=heads.run, args=(3600.0,), daemon=True)
        loop.start()
        deadline = time.monotonic() + HANG
        while not heads._serving and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.1)  # into its select
        stopper = threading.Thread(target=heads.stop, daemon=True)
        stopper.start()
        stopper.join(HANG)
        loop.join(HANG)
        assert not stopper.is_alive() and not loop.is_alive()
        heads.close()
