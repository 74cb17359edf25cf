"""What the fake guest's console servers share: a threaded TCP listener of its own
on 127.0.0.1 (a port per guest, as a real guest's VNC, SPICE or serial chardev
has), stopped with the guest, and an exact read from a client."""

from __future__ import annotations

import socket
import socketserver
import threading


def read_exactly(conn: socket.socket, count: int) -> bytes:
    """``count`` bytes, or b"" when the client goes first."""
    data = b""
    while len(data) < count:
        chunk = conn.recv(count - len(data))
        if not chunk:
            return b""
        data += chunk
    return data


class GuestListener(socketserver.ThreadingTCPServer):
    """Serves ``handler`` for one guest (``name``) until ``stop``."""

    daemon_threads = True
    allow_reuse_address = True
    handler: type[socketserver.BaseRequestHandler]
    thread_prefix = "console"

    def __init__(self, name: str, host: str = "127.0.0.1") -> None:
        super().__init__((host, 0), self.handler)
        self.name = name
        self._thread = threading.Thread(
            target=self.serve_forever, name=f"{self.thread_prefix}-{name}", daemon=True
        )
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)
