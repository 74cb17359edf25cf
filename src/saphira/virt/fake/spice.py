"""A minimal SPICE server per fake guest, so a SPICE console URL works in CI.

It answers a client's link message (``REDQ``, protocol 2.2) with a link
reply of its own: no error, an empty public key, no capabilities. Then it
reads and drops what the client sends until the client goes. Enough for the
proxy to relay and a client to see the guest's SPICE server answer; it draws
nothing. Each guest gets its own listener on 127.0.0.1, stopped with it.
"""

from __future__ import annotations

import socket
import socketserver
import struct
import threading

MAGIC = b"REDQ"
VERSION = (2, 2)
PUBKEY_BYTES = 162  # SPICE_TICKET_PUBKEY_BYTES


def link_reply() -> bytes:
    body = struct.pack("<I", 0) + bytes(PUBKEY_BYTES) + struct.pack("<III", 0, 0, 4 + 162 + 12)
    return MAGIC + struct.pack("<III", *VERSION, len(body)) + body


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        conn: socket.socket = self.request
        head = _read(conn, 16)
        if head[:4] != MAGIC:
            return
        (size,) = struct.unpack("<I", head[12:16])
        if not _read(conn, size):
            return
        conn.sendall(link_reply())
        while conn.recv(4096):
            pass


def _read(conn: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = conn.recv(count - len(data))
        if not chunk:
            return b""
        data += chunk
    return data


class SpiceServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, name: str, host: str = "127.0.0.1") -> None:
        super().__init__((host, 0), _Handler)
        self.name = name
        self._thread = threading.Thread(
            target=self.serve_forever, name=f"spice-{name}", daemon=True
        )
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)
