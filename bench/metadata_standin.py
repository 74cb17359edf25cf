"""A stand-in for the metadata API for bench/metadata.py: checks the signature as Nova
does (constant-time compare) and answers a small JSON document; counts both."""

from __future__ import annotations

import contextlib
import hmac
import json
import secrets
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from saphira.network.metadata.headers import sign_instance_id


def percentile(values: list[float], share: float) -> float:
    """Nearest rank: with fewer than 100 values, p99 is the maximum."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


class StandIn:
    def __init__(self, secret: str, port: int) -> None:
        self.secret, self.port = secret, port
        self.answered = self.refused = 0
        self._lock = threading.Lock()

    def check(self, instance_id: str, signature: str) -> bool:
        good = hmac.compare_digest(sign_instance_id(self.secret, instance_id), signature)
        with self._lock:
            if good:
                self.answered += 1
            else:
                self.refused += 1
        return good

    @classmethod
    @contextlib.contextmanager
    def running(cls) -> Iterator[StandIn]:
        """On all addresses of the host: the cloud's agent asks 127.0.0.1."""
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        stand_in = cls(secrets.token_urlsafe(18), server.server_address[1])
        setattr(server, "stand_in", stand_in)  # noqa: B010 - the handler's way back
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield stand_in
        finally:
            server.shutdown()
            server.server_close()


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        stand_in: StandIn = getattr(self.server, "stand_in")  # noqa: B009
        instance = self.headers.get("X-Instance-ID", "")
        if not stand_in.check(instance, self.headers.get("X-Instance-ID-Signature", "")):
            self._send(403, {"error": "bad signature"})
            return
        self._send(200, {"uuid": instance, "project_id": self.headers.get("X-Tenant-ID")})

    def _send(self, status: int, body: dict[str, object]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass
