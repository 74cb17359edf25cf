"""A websocket client small enough to read: the console tests' browser.

It sends the upgrade a browser sends (path with its query, Origin, the
"binary" subprotocol) and frames as RFC 6455 says, written here rather than
taken from websockify so the proxy's framing is checked by other code than
its own.
"""

from __future__ import annotations

import base64
import os
import socket
import struct
from dataclasses import dataclass, field


class Refused(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"upgrade refused with {status}")
        self.status = status


@dataclass
class WsClient:
    sock: socket.socket
    buffered: bytes = b""
    _data: bytes = field(default=b"", repr=False)

    @classmethod
    def open(cls, host: str, port: int, path: str, origin: str | None = None,
             timeout: float = 30.0) -> WsClient:  # fmt: skip
        """Connect and upgrade; Refused(status) when the answer is not 101."""
        sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}", "Upgrade: websocket",
                 "Connection: Upgrade", f"Sec-WebSocket-Key: {key}",
                 "Sec-WebSocket-Version: 13", "Sec-WebSocket-Protocol: binary"]  # fmt: skip
        if origin is not None:
            lines.append(f"Origin: {origin}")
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                break
            head += chunk
        status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else 0
        if status != 101:
            sock.close()
            raise Refused(status)
        return cls(sock, head.split(b"\r\n\r\n", 1)[1])

    def _read(self, count: int) -> bytes:
        while len(self.buffered) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("the proxy closed the connection")
            self.buffered += chunk
        data, self.buffered = self.buffered[:count], self.buffered[count:]
        return data

    def frame(self) -> bytes:
        """The next data frame's payload (a close frame raises EOFError)."""
        first, second = self._read(2)
        length = second & 0x7F
        if length == 126:
            (length,) = struct.unpack("!H", self._read(2))
        elif length == 127:
            (length,) = struct.unpack("!Q", self._read(8))
        payload = self._read(length)
        if first & 0x0F == 0x8:
            raise EOFError("close frame")
        return payload

    def recv(self, count: int) -> bytes:
        """Exactly ``count`` bytes of the relayed stream, across frames."""
        while len(self._data) < count:
            self._data += self.frame()
        data, self._data = self._data[:count], self._data[count:]
        return data

    def send(self, data: bytes) -> None:
        mask = os.urandom(4)
        head = bytes([0x82])  # FIN, binary
        if len(data) < 126:
            head += bytes([0x80 | len(data)])
        else:
            head += bytes([0x80 | 126]) + struct.pack("!H", len(data))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(head + mask + masked)

    def closed(self) -> bool:
        """True once the proxy has closed the stream (a close frame or EOF)."""
        try:
            while True:
                self.frame()
        except (EOFError, OSError):
            return True

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> WsClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
