"""``/openapi.json`` under an API's root, without a token, built once per process."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

    from saphira.api.image.app import Settings

PATH = "/openapi.json"


class OpenAPIFirst:
    """Answers GET /openapi.json itself; every other request goes to ``app``."""

    def __init__(self, app: WSGIApplication, build: Callable[[], dict[str, Any]]) -> None:
        self.app = app
        self.build = build

    @functools.cached_property
    def body(self) -> bytes:
        return json.dumps(self.build(), sort_keys=True).encode()

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != PATH or environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            return self.app(environ, start_response)
        body = self.body
        headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
        start_response("200 OK", headers)
        return [] if environ["REQUEST_METHOD"] == "HEAD" else [body]


def described(name: str) -> Callable[[], dict[str, Any]]:
    """The builder of API ``name``'s document (the table modules import the APIs, which
    import this one: they are imported on the first request, not here)."""

    def build() -> dict[str, Any]:
        from saphira.api.openapi.build import document
        from saphira.api.openapi.specs import FIXED

        return document(FIXED[name])

    return build


def described_image(settings: Settings) -> Callable[[], dict[str, Any]]:
    def build() -> dict[str, Any]:
        from saphira.api.openapi.build import document
        from saphira.api.openapi.specs import image_spec

        return document(image_spec(settings))

    return build
