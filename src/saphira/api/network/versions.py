"""``GET /``: the version document, answered before authentication as Neutron's is.

``GET /v2.0`` (authenticated) lists the collections, as neutron-server does.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.network.app import Call
from saphira.api.wsgi import json_response

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

COLLECTIONS = ("networks", "subnets", "ports", "security-groups", "security-group-rules",
               "agents", "quotas", "extensions")  # fmt: skip


def _base(environ: WSGIEnvironment) -> str:
    host = environ.get("HTTP_HOST") or f"{environ['SERVER_NAME']}:{environ['SERVER_PORT']}"
    return f"{environ.get('wsgi.url_scheme', 'http')}://{host}"


def document(base: str) -> dict[str, object]:
    link = {"rel": "self", "href": f"{base}/v2.0/"}
    return {"versions": [{"id": "v2.0", "status": "CURRENT", "links": [link]}]}


class VersionsFirst:
    """Answer ``GET /`` itself; everything else goes to the authenticated app."""

    def __init__(self, app: WSGIApplication) -> None:
        self.app = app

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO", "") not in ("", "/") or environ.get("REQUEST_METHOD") not in (
            "GET",
            "HEAD",
        ):
            return self.app(environ, start_response)
        body = json.dumps(document(_base(environ))).encode("utf-8")
        headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
        start_response("200 OK", headers)
        return [body] if environ.get("REQUEST_METHOD") == "GET" else []


def _resources(call: Call) -> Response:
    base = call.request.host_url.rstrip("/")
    resources = [
        {"name": c.rstrip("s").replace("-", "_"), "collection": c.replace("-", "_"),
         "links": [{"rel": "self", "href": f"{base}/v2.0/{c}"}]}
        for c in COLLECTIONS
    ]  # fmt: skip
    return json_response({"resources": resources})


def routes() -> list[Rule]:
    return [Rule("/v2.0", methods=["GET"], endpoint=_resources)]
