"""What both hops of the metadata path answer with: the namespace proxy (guest ->
agent) and the metadata agent (proxy -> metadata API) relay GET, HEAD, POST and
PUT alike over HTTP/1.0, with a bounded, Content-Length-only body."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler

MAX_BODY = 64 * 1024  # the metadata API takes one small POST: the password


class RelayingHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def do_GET(self) -> None:
        self._relay()

    def do_HEAD(self) -> None:
        self._relay()

    def do_POST(self) -> None:
        self._relay()

    def do_PUT(self) -> None:
        self._relay()

    def _relay(self) -> None:
        raise NotImplementedError

    def body_length(self) -> int | None:
        """The request body's length, or None for a chunked, malformed or too long one."""
        if self.headers.get("Transfer-Encoding"):
            return None
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            return None
        return length if 0 <= length <= MAX_BODY else None
