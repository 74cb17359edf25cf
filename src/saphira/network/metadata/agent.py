"""The metadata agent: the host side of the namespace proxies, on a unix socket.

Only the proxies connect (the socket is ``0600``, owned by the user they run
as), and each request names the network it arrived on and the guest's
address (``X-Neutron-Network-ID``, ``X-Forwarded-For``, set by the proxy from
its listener and peer, the guest's own copies already removed). The agent
resolves them to the instance, 404 when no instance's port has that address,
and forwards the request signed (``upstream``). At most ``workers`` requests
are resolved and forwarded at once; the others wait for a slot.
"""

from __future__ import annotations

import logging
import os
import socketserver
import threading
from pathlib import Path

from saphira.exception import SaphiraError
from saphira.network.metadata import headers
from saphira.network.metadata.relaying import RelayingHandler
from saphira.network.metadata.resolver import Resolver
from saphira.network.metadata.upstream import Answer, MetadataApi, failure

LOG = logging.getLogger(__name__)
BACKLOG = 1024
NOT_FOUND = Answer(404, b"No instance is known at this address on this network.\n")
BAD = Answer(400, b"Bad request.\n")


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    request_queue_size = BACKLOG  # socketserver's 5 turns a boot storm's connects away
    agent: MetadataAgent


class _Handler(RelayingHandler):
    server: _Server

    def _relay(self) -> None:
        body = self._body()
        network_id = self.headers.get(headers.NETWORK_ID, "")
        remote = self.headers.get(headers.FORWARDED_FOR, "")
        if body is None or not network_id or not remote or not origin_form(self.path):
            answer = BAD
        else:
            answer = self.server.agent.answer(self.command, self.path, body, network_id, remote)
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Content-Length", str(len(answer.body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(answer.body)

    def _body(self) -> bytes | None:
        length = self.body_length()
        return None if length is None else self.rfile.read(length)

    def log_message(self, format: str, *args: object) -> None:
        LOG.debug("metadata agent: " + format, *args)


def origin_form(path: str) -> bool:
    """``/path?query`` only: no absolute URL or authority for the API to misread."""
    return path.startswith("/") and not path.startswith("//")


class MetadataAgent:
    def __init__(
        self,
        socket_path: Path,
        resolver: Resolver,
        api: MetadataApi,
        *,
        workers: int = 32,
        owner: tuple[int, int] | None = None,
    ) -> None:
        self.socket_path, self.resolver, self.api = socket_path, resolver, api
        self.owner = owner  # who may connect: the proxies' uid and gid
        self.slots = threading.BoundedSemaphore(workers)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def answer(self, method: str, path: str, body: bytes, network_id: str, remote: str) -> Answer:
        with self.slots:
            try:
                found = self.resolver.resolve(network_id, remote)
            except (SaphiraError, OSError) as error:
                LOG.warning("no port look-up for %s on %s: %s", remote, network_id, error)
                return failure()
            if found is None:
                LOG.info("metadata request from %s on %s: no instance's port", remote, network_id)
                return NOT_FOUND
            return self.api.forward(method, path, body, found.instance_id, found.project_id, remote)

    def start(self) -> None:
        self.socket_path.unlink(missing_ok=True)
        old = os.umask(0o177)
        try:
            server = _Server(str(self.socket_path), _Handler)
        finally:
            os.umask(old)
        if self.owner is not None:
            os.chown(self.socket_path, *self.owner)
        server.agent = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, name="metadata-agent", daemon=True
        )
        self._thread.start()
        LOG.info("metadata agent on %s forwards to %s:%d", self.socket_path,
                 self.api.host, self.api.port)  # fmt: skip

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        self.socket_path.unlink(missing_ok=True)
