"""The version documents, served before authentication as Glance's rootapp does.

Clients discover the v2 URL from ``GET /`` (300 Multiple Choices); the CLI
fails without it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

CURRENT = 16  # v2.16, Glance 2024.1
PATHS = ("", "/", "/versions", "/v2", "/v2/")


def document(base: str) -> dict[str, list[dict[str, object]]]:
    versions: list[dict[str, object]] = []
    for minor in range(CURRENT, -1, -1):
        versions.append(
            {
                "id": f"v2.{minor}",
                "status": "CURRENT" if minor == CURRENT else "SUPPORTED",
                "links": [{"rel": "self", "href": f"{base}/v2/"}],
            }
        )
    return {"versions": versions}


def _base(environ: WSGIEnvironment) -> str:
    host = environ.get("HTTP_HOST") or f"{environ['SERVER_NAME']}:{environ['SERVER_PORT']}"
    return f"{environ.get('wsgi.url_scheme', 'http')}://{host}"


class VersionsFirst:
    """Answer the version paths itself; pass everything else to the authenticated app."""

    def __init__(self, app: WSGIApplication) -> None:
        self.app = app

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path not in PATHS or environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            return self.app(environ, start_response)
        body = json.dumps(document(_base(environ))).encode("utf-8")
        status = "200 OK" if path == "/versions" else "300 Multiple Choices"
        headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
        start_response(status, headers)
        return [body] if environ.get("REQUEST_METHOD") == "GET" else []
