"""An upload over a plain socket, sent piece by piece: a test can pause in the
middle of a body, break off, or see a refusal arrive before the body ends."""

from __future__ import annotations

import http.client
import socket
from urllib.parse import urlparse

from tests.functional.image.helpers import TIMEOUT, ImageClient
from tests.sockets import readable

PIECE = 64 * 1024
BYTE = b"\1"  # not zeros: the store skips zero runs with a seek


class RawUpload:
    def __init__(
        self, client: ImageClient, image_id: str, size: int, *, chunked: bool, action: str = "file"
    ) -> None:
        url = urlparse(client.base)
        assert url.hostname is not None and url.port is not None
        self.sock = socket.create_connection((url.hostname, url.port), timeout=TIMEOUT)
        self.size, self.chunked, self.sent = size, chunked, 0
        length = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {size}"
        head = (
            f"PUT /v2/images/{image_id}/{action} HTTP/1.1\r\nHost: {url.netloc}\r\n"
            f"X-Auth-Token: {client.token}\r\nContent-Type: application/octet-stream\r\n"
            f"{length}\r\n\r\n"
        )
        self.sock.sendall(head.encode())

    def answered(self) -> bool:
        """Whether the server has answered (or closed) already."""
        return readable(self.sock)

    def send(self, count: int) -> bool:
        """Send ``count`` more bytes of the body; False once the server answered first."""
        end = min(self.sent + count, self.size)
        while self.sent < end:
            if self.answered():
                return False
            piece = min(PIECE, end - self.sent)
            data = BYTE * piece
            if self.chunked:
                data = f"{piece:x}\r\n".encode() + data + b"\r\n"
            try:
                self.sock.sendall(data)
            except OSError:  # the server answered and closed meanwhile
                return False
            self.sent += piece
        return True

    def finish(self) -> tuple[int, str]:
        """Send the rest of the body (unless refused meanwhile) and read the answer."""
        try:
            if self.send(self.size - self.sent) and self.chunked:
                self.sock.sendall(b"0\r\n\r\n")
        except BaseException:
            self.sock.close()
            raise
        return self.response()

    def response(self) -> tuple[int, str]:
        """The answer; the socket is closed whatever came (a failed test leaks no socket)."""
        try:
            answer = http.client.HTTPResponse(self.sock)
            answer.begin()
            return answer.status, answer.read().decode()
        finally:
            self.sock.close()

    def abort(self) -> None:
        """Break off in the middle of the body."""
        self.sock.close()
