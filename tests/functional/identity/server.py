"""Serve a WSGI app with cheroot on 127.0.0.1 and a free port, in a thread."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from cheroot import wsgi


@contextmanager
def serve(app: Any) -> Iterator[str]:
    server = wsgi.Server(("127.0.0.1", 0), app, numthreads=4)
    server.prepare()
    port = server.bind_addr[1]
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()
        thread.join(timeout=10)
