"""A VNC client's first steps (RFB 3.8), over any byte stream: what the console
tests check a guest's console with, directly or through the noVNC proxy."""

from __future__ import annotations

import socket
import struct
from collections.abc import Callable

VERSION = b"RFB 003.008\n"


def handshake(recv: Callable[[int], bytes], send: Callable[[bytes], None]) -> list[int]:
    """Read the server's version, answer 3.8, return the security types offered."""
    version = recv(12)
    assert version.startswith(b"RFB 003."), version
    send(VERSION)
    count = recv(1)[0]
    assert count > 0, "the server refused the connection"
    return list(recv(count))


def server_name(recv: Callable[[int], bytes], send: Callable[[bytes], None]) -> str:
    """Choose security None, send ClientInit, return the desktop name of ServerInit."""
    send(bytes([1]))
    assert struct.unpack("!I", recv(4)) == (0,)
    send(bytes([1]))
    head = recv(24)
    (length,) = struct.unpack("!I", head[20:24])
    return recv(length).decode()


def over_socket(sock: socket.socket) -> tuple[Callable[[int], bytes], Callable[[bytes], None]]:
    def recv(count: int) -> bytes:
        data = b""
        while len(data) < count:
            chunk = sock.recv(count - len(data))
            assert chunk, "the server closed the connection"
            data += chunk
        return data

    return recv, sock.sendall
