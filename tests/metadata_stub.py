"""A stand-in for the metadata API: records what reached it and checks the signature.

It answers 403 to a wrong signature, as Nova's metadata handler does, and
otherwise a JSON body naming the instance and project it was asked about.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hmac
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from saphira.network.metadata.headers import sign_instance_id

SECRET = "sx-shared-secret"


@dataclasses.dataclass(frozen=True)
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    seen: list[Seen]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self._answer()

    def _answer(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        got = {name.lower(): value for name, value in self.headers.items()}
        self.server.seen.append(Seen(self.command, self.path, got, body))
        instance = got.get("x-instance-id", "")
        signature = got.get("x-instance-id-signature", "")
        if not hmac.compare_digest(sign_instance_id(SECRET, instance), signature):
            self._send(403, {"error": "bad signature"})
            return
        self._send(200, {"uuid": instance, "project_id": got.get("x-tenant-id"), "path": self.path})

    def _send(self, status: int, body: dict[str, object]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@dataclasses.dataclass
class StubApi:
    host: str
    port: int
    seen: list[Seen]


@contextlib.contextmanager
def stub_metadata_api() -> Iterator[StubApi]:
    server = _Server(("127.0.0.1", 0), _Handler)
    server.seen = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield StubApi("127.0.0.1", server.server_address[1], server.seen)
    finally:
        server.shutdown()
        server.server_close()
