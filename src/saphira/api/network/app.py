"""The network WSGI app: the caller, one transaction per request, Neutron's faults.

Errors are ``{"NeutronError": {"type": ..., "message": ..., "detail": ""}}``:
Neutron's own exception name where saphira.netsvc.errors has it, the webob
``HTTP...`` name for the generic ones, as neutron-server writes them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session
from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira import exception
from saphira.api.auth import request_context
from saphira.api.wsgi import Application, Request, json_body
from saphira.db.transactions import Database
from saphira.netsvc import agent_changes
from saphira.netsvc.agent_notifier import AgentNotifier
from saphira.netsvc.caller import Caller
from saphira.netsvc.errors import Named
from saphira.netsvc.settings import Settings
from saphira.policy import Enforcer

MAX_BODY = 1024 * 1024
READS = frozenset({"GET", "HEAD", "OPTIONS"})
INTERNAL = "Request Failed: internal server error while processing your request."
_HTTP_NAMES = {
    400: "HTTPBadRequest", 401: "HTTPUnauthorized", 403: "HTTPForbidden", 404: "HTTPNotFound",
    405: "HTTPMethodNotAllowed", 409: "HTTPConflict", 413: "HTTPRequestEntityTooLarge",
    415: "HTTPUnsupportedMediaType", 501: "HTTPNotImplemented", 503: "HTTPServiceUnavailable",
}  # fmt: skip


def neutron_fault(error: exception.SaphiraError) -> dict[str, Any]:
    if isinstance(error, Named):
        name = type(error).__name__
    else:
        name = _HTTP_NAMES.get(error.code, "HTTPInternalServerError")
    message = INTERNAL if name == "HTTPInternalServerError" else error.message
    return {"NeutronError": {"type": name, "message": message, "detail": ""}}


@dataclass
class Backend:
    db: Database
    settings: Settings
    enforcer: Enforcer
    agents: AgentNotifier | None = None


@dataclass
class Call:
    request: Request
    backend: Backend
    caller: Caller

    @property
    def settings(self) -> Settings:
        return self.backend.settings

    def body(self) -> Any:
        return json_body(self.request)

    @contextmanager
    def reader(self) -> Iterator[Session]:
        with self.backend.db.reader() as session:
            yield session

    @contextmanager
    def writer(self) -> Iterator[Session]:
        with self.backend.db.writer() as session:
            yield session


Handler = Callable[..., Response]


def route(path: str, methods: list[str], handler: Handler) -> Rule:
    return Rule(f"/v2.0{path}", methods=methods, endpoint=handler)


class NetworkApp(Application):
    def __init__(self, rules: list[Rule], backend: Backend) -> None:
        super().__init__(rules, neutron_fault, max_body_size=MAX_BODY)
        self.backend = backend

    def dispatch(self, request: Request, endpoint: Any, args: Mapping[str, Any]) -> Response:
        caller = Caller(request_context(request.environ), self.backend.enforcer)
        call, agents = Call(request, self.backend, caller), self.backend.agents
        if agents is None or request.method in READS:
            response: Response = endpoint(call, **args)
            return response
        with agent_changes.watching(self.backend.db):  # the rows written name who to nudge
            response = endpoint(call, **args)
            if response.status_code < 400:
                agents.changed(caller.ctx)
        return response
