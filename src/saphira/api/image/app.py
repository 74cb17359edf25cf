"""The image WSGI app: the caller's context, the backend, and Glance-shaped faults.

Glance answers errors with webob's pages: HTML unless the client asks for
JSON or plain text; openstacksdk and the CLI show the page's text lines, so
ours have the same shape.
"""

from __future__ import annotations

import html
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira import exception
from saphira.api.auth import request_context
from saphira.api.wsgi import Application, Request, json_body
from saphira.api.wsgi.app import public_error
from saphira.context import RequestContext
from saphira.db.image.models import Image
from saphira.image.data import DataService
from saphira.image.records import Records
from saphira.policy import Enforcer


@dataclass(frozen=True)
class Settings:
    """The [image_api] values handlers consult on every request."""

    disk_formats: tuple[str, ...]
    container_formats: tuple[str, ...]
    limit_default: int
    limit_max: int
    count_quota: int
    member_quota: int
    property_quota: int
    tag_quota: int
    import_methods: tuple[str, ...]


@dataclass
class Backend:
    records: Records
    data: DataService
    settings: Settings
    enforcer: Enforcer


@dataclass
class Call:
    request: Request
    backend: Backend
    ctx: RequestContext

    @property
    def records(self) -> Records:
        return self.backend.records

    @property
    def settings(self) -> Settings:
        return self.backend.settings

    def body(self) -> Any:
        return json_body(self.request)

    def authorize(
        self, rule: str, image: Image | None = None, member_id: str | None = None
    ) -> None:
        """Enforce a rule of saphira.policies.image on an image (or the caller's project).

        The target is Glance's: the image's owner as ``project_id``, its
        visibility, and the project a membership is about (the caller's own
        unless ``member_id`` names another). Refusals read as Glance's do.
        """
        owner = image.owner if image is not None else self.ctx.project_id
        target = {
            "project_id": owner,
            "owner": owner,
            "visibility": image.visibility if image is not None else None,
            "member_id": member_id or self.ctx.project_id,
        }
        try:
            self.backend.enforcer.enforce(self.ctx, rule, target)
        except exception.Forbidden:
            raise exception.Forbidden(
                f"You are not authorized to complete {rule} action."
            ) from None


Handler = Callable[..., Response]


def route(path: str, methods: list[str], handler: Handler) -> Rule:
    return Rule(path, methods=methods, endpoint=handler)


def text_fault(error: exception.SaphiraError, accept: str = "") -> Response:
    """webob's error page as Glance returns it: HTML by default, JSON or text if asked."""
    status = f"{error.code} {error.title}"
    if "application/json" in accept and "html" not in accept:
        body = {"code": status, "title": error.title, "message": error.message}
        return Response(json.dumps(body), status=error.code, mimetype="application/json")
    if "text/plain" in accept and "html" not in accept and "*/*" not in accept:
        text = f"{status}\n\n{error.message}\n\n   "
        return Response(text, status=error.code, mimetype="text/plain")
    page = (
        f"<html>\n <head>\n  <title>{status}</title>\n </head>\n <body>\n"
        f"  <h1>{status}</h1>\n  {html.escape(error.message)}<br /><br />\n\n\n\n </body>\n</html>"
    )
    return Response(page, status=error.code, mimetype="text/html")


class ImageApp(Application):
    def __init__(self, rules: list[Rule], backend: Backend, *, max_body_size: int) -> None:
        # Glance's routes take no trailing slash: /v2/images/ names no image (404).
        super().__init__(rules, lambda e: {}, max_body_size=max_body_size, strict_slashes=True)
        self.backend = backend
        self._local = threading.local()

    def handle(self, request: Request) -> Response:
        self._local.accept = request.headers.get("Accept", "")
        return super().handle(request)

    def dispatch(self, request: Request, endpoint: Any, args: Mapping[str, Any]) -> Response:
        ctx = request_context(request.environ)
        response: Response = endpoint(Call(request, self.backend, ctx), **args)
        return response

    def fault(self, error: exception.SaphiraError) -> Response:
        return text_fault(public_error(error), getattr(self._local, "accept", ""))
