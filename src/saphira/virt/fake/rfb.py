"""A minimal VNC (RFB 3.8) server per fake guest, so a console URL works in CI.

It speaks the handshake a VNC client starts with: the version, security type
None, ServerInit with a 1x1 framebuffer named after the guest; then it reads
and drops what the client sends until the client goes. Enough for the console
proxy to relay and for a client to see a guest's console open; it draws
nothing. Each guest gets its own listener on 127.0.0.1 (a port of its own, as
a real guest's VNC server has), stopped when the guest is destroyed.
"""

from __future__ import annotations

import socket
import socketserver
import struct

from saphira.virt.fake.listener import GuestListener, read_exactly

VERSION = b"RFB 003.008\n"
SECURITY_NONE = 1
# 32 bits per pixel, depth 24, little endian, true colour, 8 bits each of R, G, B.
PIXEL_FORMAT = struct.pack("!BBBBHHHBBB3x", 32, 24, 0, 1, 255, 255, 255, 16, 8, 0)


def server_init(name: str) -> bytes:
    encoded = name.encode()
    return struct.pack("!HH", 1, 1) + PIXEL_FORMAT + struct.pack("!I", len(encoded)) + encoded


class _Handler(socketserver.BaseRequestHandler):
    server: GuestListener

    def handle(self) -> None:
        conn: socket.socket = self.request
        conn.sendall(VERSION)
        if not read_exactly(conn, 12):
            return
        conn.sendall(bytes([1, SECURITY_NONE]))
        if not read_exactly(conn, 1):
            return
        conn.sendall(struct.pack("!I", 0))  # SecurityResult: OK
        if not read_exactly(conn, 1):  # ClientInit (shared flag)
            return
        conn.sendall(server_init(self.server.name))
        while conn.recv(4096):
            pass


class RfbServer(GuestListener):
    handler = _Handler
    thread_prefix = "rfb"
