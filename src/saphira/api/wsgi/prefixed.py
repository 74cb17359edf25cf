"""A socket reader that first returns bytes already read from the socket.

The selector thread reads a request head before any worker sees the
connection (``heads.HeadFirst``); the worker's cheroot reader must then
start with those bytes and continue with the socket.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

from cheroot.makefile import MakeFile, StreamReader


class _PrefixedIO(socket.SocketIO):
    def __init__(self, sock: socket.socket, prefix: bytes) -> None:
        super().__init__(sock, "rb")
        self.prefix = memoryview(prefix)

    def readinto(self, b: Any) -> int | None:
        if self.prefix:
            n = min(len(b), len(self.prefix))
            b[:n] = self.prefix[:n]
            self.prefix = self.prefix[n:]
            return n
        return super().readinto(b)


class PrefixedReader(StreamReader):
    def __init__(self, sock: socket.socket, prefix: bytes, bufsize: int) -> None:
        # StreamReader's parent (_pyio's BufferedReader), over our raw reader
        super(StreamReader, self).__init__(_PrefixedIO(sock, prefix), bufsize)
        self.bytes_read = 0

    def has_data(self) -> bool:
        raw = self.raw
        return bool(
            super().has_data()  # type: ignore[no-untyped-call]
            or (isinstance(raw, _PrefixedIO) and raw.prefix)
        )


def prefixed_makefile(prefix: bytes) -> Callable[..., Any]:
    """cheroot's ``makefile`` signature, with ``prefix`` in front of what is read."""

    def make(sock: socket.socket, mode: str = "r", bufsize: int = 8192) -> Any:
        if "r" in mode:
            return PrefixedReader(sock, prefix, bufsize)
        return MakeFile(sock, mode, bufsize)

    return make
