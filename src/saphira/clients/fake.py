"""An in-memory transport the unit tests program: no socket, no mock.

Answers are queued per (method, path): ``reply`` adds a canned answer,
``refuse_connection`` a failed connection, ``handle`` a function of the
request (a tiny service; its reply may carry ``chunks``, e.g. a stream that
breaks off). Each request takes the first queued answer of its
route; the last one stays and answers every later request. Every request
sent is kept in ``sent``, so a test reads the exact method, URL, headers,
query and body a client produced. A request nobody programmed fails the
test with its method and path.
"""

from __future__ import annotations

import dataclasses
import json as jsonlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from saphira.clients.transport import Reply, Request, TransportError

Answer = Reply | TransportError | Callable[[Request], Reply]


@dataclass
class FakeTransport:
    routes: dict[tuple[str, str], list[Answer]] = field(default_factory=dict)
    sent: list[Request] = field(default_factory=list)
    chunk: int = 4
    closed: int = 0

    def reply(
        self, method: str, path: str, status: int = 200, json: Any = None,
        content: bytes = b"", headers: dict[str, str] | None = None,
    ) -> None:  # fmt: skip
        """Queue an answer; ``json`` is encoded as the body when given."""
        body = jsonlib.dumps(json).encode() if json is not None else content
        self._queue(method, path, Reply(status, dict(headers or {}), body))

    def refuse_connection(self, method: str, path: str, times: int = 1) -> None:
        for _ in range(times):
            self._queue(method, path, TransportError("Connection refused (fake)"))

    def handle(self, method: str, path: str, handler: Callable[[Request], Reply]) -> None:
        self._queue(method, path, handler)

    def _queue(self, method: str, path: str, answer: Answer) -> None:
        self.routes.setdefault((method.upper(), path), []).append(answer)

    def send(self, request: Request) -> Reply:
        self.sent.append(request)
        if request.data is not None:  # a streamed upload is read to its end, as on a wire
            request = dataclasses.replace(request, data=[b"".join(request.data)])
            self.sent[-1] = request
        key = (request.method.upper(), urlsplit(request.url).path)
        queue = self.routes.get(key)
        if not queue:
            raise AssertionError(f"FakeTransport: nothing programmed for {key[0]} {key[1]}")
        answer = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(answer, TransportError):
            raise answer
        reply = answer if isinstance(answer, Reply) else answer(request)
        reply = Reply(reply.status, reply.headers, reply.content, reply.chunks, self._close)
        if request.stream and reply.status < 400 and reply.chunks is None:
            reply.chunks, reply.content = self._chunks(reply.content), b""
        return reply

    def _chunks(self, content: bytes) -> Iterator[bytes]:
        for start in range(0, len(content), self.chunk):
            yield content[start : start + self.chunk]

    def _close(self) -> None:
        self.closed += 1

    def paths(self) -> list[str]:
        """``METHOD /path?query`` of every request sent, in order."""
        return [f"{r.method} {urlsplit(r.url).path}" + _query(r) for r in self.sent]


def _query(request: Request) -> str:
    return "?" + "&".join(f"{k}={v}" for k, v in request.params) if request.params else ""
