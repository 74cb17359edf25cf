"""The placement WSGI app: microversion, caller, policy, handler, Placement's errors.

Every response carries ``OpenStack-API-Version: placement 1.x`` and
``Vary: openstack-api-version``; errors are ``{"errors": [...]}`` with a
``code`` from 1.23, as Placement shapes them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from werkzeug.http import http_date
from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira import exception
from saphira.api.auth import request_context
from saphira.api.placement import microversion
from saphira.api.placement.microversion import Version
from saphira.api.wsgi import Application, Request, json_body, json_response, validate
from saphira.context import RequestContext
from saphira.db.placement import Database
from saphira.placement.errors import error_code
from saphira.policy import Enforcer

VERSION_KEY = "saphira.placement.version"


@dataclass
class Call:
    """What a handler needs: request, version, caller, database."""

    request: Request
    version: Version
    db: Database
    enforcer: Enforcer
    retries: int

    @property
    def context(self) -> RequestContext:
        return request_context(self.request.environ)

    def enforce(self, rule: str) -> None:
        self.enforcer.enforce(self.context, rule, {"project_id": self.context.project_id})

    def at_least(self, minor: int) -> bool:
        return self.version.at_least(minor)

    def require(self, minor: int) -> None:
        """404 for a route or method that does not exist at this microversion."""
        if not self.at_least(minor):
            raise exception.NotFound("The resource could not be found.")

    def body(self, schema: dict[str, Any]) -> Any:
        data = json_body(self.request)
        try:
            validate(data, schema)
        except exception.ValidationError as error:
            raise exception.BadRequest(
                f"JSON does not validate: {error.message.split(': ', 1)[-1]}"
            ) from None
        return data


Handler = Callable[..., Response]


def route(path: str, methods: list[str], handler: Handler, public: bool = False) -> Rule:
    return Rule(path, methods=methods, endpoint=(handler, public))


def placement_fault(error: exception.SaphiraError) -> dict[str, Any]:
    return {
        "errors": [
            {
                "status": error.code,
                "title": error.title,
                "detail": error.message,
                "code": error_code(error),
            }
        ]
    }


def _finish_error(response: Response, request_id: str, version: Any) -> None:
    """Add the request id; drop ``code`` before 1.23, where Placement had none."""
    data = response.get_json(silent=True)
    if not isinstance(data, dict) or "errors" not in data:
        return
    for item in data["errors"]:
        item["request_id"] = request_id
        if not (isinstance(version, Version) and version.at_least(23)):
            item.pop("code", None)
    response.set_data(json_response(data).get_data())


class PlacementApp(Application):
    def __init__(
        self,
        rules: list[Rule],
        db: Database,
        enforcer: Enforcer,
        *,
        max_body_size: int,
        retries: int,
    ) -> None:
        super().__init__(rules, placement_fault, max_body_size=max_body_size)
        self.db = db
        self.enforcer = enforcer
        self.retries = retries

    def handle(self, request: Request) -> Response:
        response = super().handle(request)
        version = request.environ.get(VERSION_KEY)
        if response.status_code >= 400:
            _finish_error(response, request.request_id, version)
        if isinstance(version, Version):
            response.headers[microversion.HEADER] = f"{microversion.SERVICE} {version}"
            response.headers["Vary"] = "openstack-api-version"
            if version.at_least(15) and request.method == "GET" and response.status_code == 200:
                response.headers["Cache-Control"] = "no-cache"
                response.headers["Last-Modified"] = http_date(dt.datetime.now(dt.UTC))
        if response.status_code == 204:
            response.headers.pop("Content-Type", None)
        return response

    def dispatch(self, request: Request, endpoint: Any, args: Mapping[str, Any]) -> Response:
        handler, public = endpoint
        version = microversion.parse(request.headers.get(microversion.HEADER))
        request.environ[VERSION_KEY] = version
        call = Call(request, version, self.db, self.enforcer, self.retries)
        if not public:
            _ = call.context  # 401 before anything else when no caller
        result: Response = handler(call, **args)
        return result
