"""A fake guest's serial port on TCP, so a serial console URL works in CI.

Like a real guest's ``tcp`` serial chardev it listens on 127.0.0.1 and talks
raw bytes: on connect it prints a ``SAPHIRA-GUEST:`` marker line and a login
prompt; it echoes what it is sent and answers Enter with a new prompt. Each
guest has its own port, stopped when the guest is destroyed.
"""

from __future__ import annotations

import socket
import socketserver

from saphira.virt.fake.listener import GuestListener

MARKER = "SAPHIRA-GUEST:"


def greeting(name: str) -> bytes:
    return f"{MARKER} serial console of {name}\r\n{prompt(name)}".encode()


def prompt(name: str) -> str:
    return f"{name} login: "


class _Handler(socketserver.BaseRequestHandler):
    server: GuestListener

    def handle(self) -> None:
        conn: socket.socket = self.request
        conn.sendall(greeting(self.server.name))
        while data := conn.recv(4096):
            for byte in data:
                if byte in b"\r\n":
                    conn.sendall(f"\r\n{prompt(self.server.name)}".encode())
                else:
                    conn.sendall(bytes([byte]))


class SerialServer(GuestListener):
    handler = _Handler
    thread_prefix = "tty"
