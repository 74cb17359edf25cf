"""A stand-in controller on 127.0.0.1 for the join tool's tests and benches.

It answers the identity probe, a token with a catalog, and the views the
join's ending and --check read (os-services, os-hypervisors, resource
providers, network agents) as a healthy controller answers them for
``host``; the agents' bridge mappings are what the caller sets, as if the
agent had reported them.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Stub:
    host: str
    mappings: dict[str, str] = field(default_factory=lambda: {"physnet1": "br-physnet1"})
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def answer(self, method: str, path: str) -> tuple[int, Any, dict[str, str]]:
        base = self.url
        path = path.split("?", 1)[0]
        if (method, path) == ("GET", "/v3"):
            return 300, {"versions": {"values": []}}, {}
        if (method, path) == ("POST", "/v3/auth/tokens"):
            catalog = [
                {"type": kind, "endpoints": [
                    {"interface": "public", "region_id": "RegionOne", "url": f"{base}/{kind}"}]}
                for kind in ("compute", "placement", "network")
            ]  # fmt: skip
            return 201, {"token": {"catalog": catalog}}, {"X-Subject-Token": "t"}
        views: dict[str, Any] = {
            "/compute/os-services": {"services": [{"host": self.host, "state": "up"}]},
            "/compute/os-hypervisors/detail": {"hypervisors": [
                {"service": {"host": self.host}, "hypervisor_hostname": self.host, "state": "up"}
            ]},
            "/placement/resource_providers": {"resource_providers": [{"name": self.host}]},
            "/network/v2.0/agents": {"agents": [
                {"binary": "neutron-openvswitch-agent", "alive": True,
                 "configurations": {"bridge_mappings": self.mappings}}]},
        }  # fmt: skip
        if method == "GET" and path in views:
            return 200, views[path], {}
        return 404, {"error": path}, {}


@contextmanager
def serving(stub: Stub) -> Iterator[Stub]:
    class Handler(BaseHTTPRequestHandler):
        def _reply(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            status, body, headers = stub.answer(method, self.path)
            data = json.dumps(body).encode()
            self.send_response(status)
            for key, value in {**headers, "Content-Type": "application/json"}.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._reply("GET")

        def do_POST(self) -> None:
            self._reply("POST")

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    stub.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
