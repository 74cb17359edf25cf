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

from saphira.virt.fake.listener import GuestListener, read_exactly

MAGIC = b"REDQ"
VERSION = (2, 2)
PUBKEY_BYTES = 162  # SPICE_TICKET_PUBKEY_BYTES


def link_reply() -> bytes:
    body = struct.pack("<I", 0) + bytes(PUBKEY_BYTES) + struct.pack("<III", 0, 0, 4 + 162 + 12)
    return MAGIC + struct.pack("<III", *VERSION, len(body)) + body


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        conn: socket.socket = self.request
        head = read_exactly(conn, 16)
        if head[:4] != MAGIC:
            return
        (size,) = struct.unpack("<I", head[12:16])
        if not read_exactly(conn, size):
            return
        conn.sendall(link_reply())
        while conn.recv(4096):
            pass


class SpiceServer(GuestListener):
    handler = _Handler
    thread_prefix = "spice"
