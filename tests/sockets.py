"""Socket helpers for tests: a free loopback port, and checks for tests that hold many
connections open.

``select.select`` refuses descriptors past 1023, which a test worker that has
run a few hundred clouds' worth of tests may well hand out; ``poll`` has no
such limit.
"""

from __future__ import annotations

import select
import socket


def readable(sock: socket.socket, timeout: float = 0) -> bool:
    """Whether ``sock`` has data (or its peer's close) waiting, within ``timeout`` seconds."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(timeout * 1000))


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (another may take it later)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
