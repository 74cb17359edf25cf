"""The compute WSGI app: Nova's error shapes, microversions, one API-DB
transaction and policy per request.

Handlers take a ``Call`` (request, negotiated version, caller, session) and
raise saphira.exception errors; ``nova_fault`` shapes them as Nova does:
``{"itemNotFound": {"code": 404, "message": "..."}}``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy.orm import Session
from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira import exception
from saphira.api.auth import CONTEXT_KEY, request_context
from saphira.api.compute import microversion
from saphira.api.compute.microversion import Version
from saphira.api.wsgi import Application, Request, json_body, validate
from saphira.computesvc import Caller
from saphira.context import RequestContext

if TYPE_CHECKING:
    from saphira.api.compute.state import ComputeState

Handler = Callable[..., Response]
MAX_BODY = 114688  # Nova's [oslo_middleware] max_request_body_size

_FAULT_NAMES = {
    400: "badRequest", 401: "unauthorized", 403: "forbidden", 404: "itemNotFound",
    405: "badMethod", 409: "conflictingRequest", 413: "overLimit", 415: "badMediaType",
    429: "overLimit", 501: "notImplemented", 503: "serviceUnavailable",
}  # fmt: skip


# A view asks at_least() many times per server; the texts are few and fixed.
_parse = functools.lru_cache(maxsize=256)(Version.parse)


def nova_fault(error: exception.SaphiraError) -> dict[str, Any]:
    name = _FAULT_NAMES.get(error.code, "computeFault")
    return {name: {"code": error.code, "message": error.message}}


def min_version(text: str) -> Callable[[Handler], Handler]:
    """Declare the first microversion a handler serves (older ones get a 404)."""

    def mark(handler: Handler) -> Handler:
        handler.min_version = Version.parse(text)  # type: ignore[attr-defined]
        return handler

    return mark


def max_version(text: str) -> Callable[[Handler], Handler]:
    """Declare the last microversion a handler serves (newer ones get a 404)."""

    def mark(handler: Handler) -> Handler:
        handler.max_version = Version.parse(text)  # type: ignore[attr-defined]
        return handler

    return mark


@dataclass(frozen=True)
class Endpoint:
    """One URL and method, served by the first handler whose version range fits."""

    handlers: tuple[Handler, ...]
    public: bool = False
    with_call: bool = False  # a public handler that takes a Call (an API-DB transaction)

    def pick(self, version: Version) -> Handler:
        for handler in self.handlers:
            low = getattr(handler, "min_version", microversion.MIN)
            high = getattr(handler, "max_version", microversion.MAX)
            if low <= version <= high:
                return handler
        raise exception.NotFound("The resource could not be found.")


def route(path: str, methods: list[str], *handlers: Handler) -> list[Rule]:
    """The rule under /v2.1 and under /v2.1/{project_id}, as Nova serves both."""
    endpoint = Endpoint(handlers)
    return [
        Rule(f"/v2.1{path}", methods=methods, endpoint=endpoint),
        Rule(f"/v2.1/<project_id>{path}", methods=methods, endpoint=endpoint),
    ]


def public_route(path: str, handler: Handler) -> Rule:
    return Rule(path, methods=["GET"], endpoint=Endpoint((handler,), public=True))


def public_post(path: str, handler: Handler) -> Rule:
    """A POST without a Keystone token (it carries its own credential); handler(call)."""
    return Rule(path, methods=["POST"], endpoint=Endpoint((handler,), True, with_call=True))


@dataclass
class Call:
    """Everything a handler needs: the request, its version, its caller and transaction."""

    request: Request
    version: Version
    state: ComputeState
    session: Session
    url_project_id: str | None = None

    @property
    def context(self) -> RequestContext:
        return request_context(self.request.environ)

    @functools.cached_property
    def svc(self) -> Caller:
        """This request as the service layer sees it (``saphira.computesvc``)."""
        return Caller(self.context, self.session, self.state.directory)

    def at_least(self, text: str) -> bool:
        known = self._at_least
        found = known.get(text)
        if found is None:
            found = known[text] = self.version >= _parse(text)
        return found

    @functools.cached_property
    def _at_least(self) -> dict[str, bool]:  # a listing's views ask the same ones per server
        return {}

    def enforce(self, rule: str, target: Mapping[str, Any] | None = None) -> None:
        context = self.context
        full = {"project_id": context.project_id, "user_id": context.user_id, **(target or {})}
        self.state.enforcer.enforce(context, rule, full)

    def body(self, schema: dict[str, Any]) -> dict[str, Any]:
        data = json_body(self.request)
        validate(data, schema)
        assert isinstance(data, dict)  # every schema demands an object
        return data

    def link_base(self) -> tuple[str, str]:
        """(self prefix, bookmark prefix), with the project id only if the URL had one."""
        return self._link_base

    @functools.cached_property
    def _link_base(self) -> tuple[str, str]:  # once per request: a listing links every server
        root = self.request.host_url.rstrip("/")
        project = f"/{self.url_project_id}" if self.url_project_id else ""
        return f"{root}/v2.1{project}", f"{root}{project}"

    def links(self, collection: str, ident: str) -> list[dict[str, str]]:
        own, bookmark = self.link_base()
        return [
            {"rel": "self", "href": f"{own}/{collection}/{ident}"},
            {"rel": "bookmark", "href": f"{bookmark}/{collection}/{ident}"},
        ]

    def next_link(self, collection: str, marker: str) -> list[dict[str, str]]:
        own, _ = self.link_base()
        pairs: list[tuple[str, str]] = []  # every value of a repeated key (sort_key...)
        for key, value in self.request.args.items(multi=True):
            if key != "marker":
                pairs.append((key, value))
            elif all(seen != "marker" for seen, _ in pairs):
                pairs.append((key, marker))
        if "marker" not in self.request.args:
            pairs.append(("marker", marker))
        query = "&".join(f"{key}={value}" for key, value in pairs)
        return [{"rel": "next", "href": f"{own}/{collection}?{query}"}]


class ComputeApp(Application):
    def __init__(self, rules: Iterable[Rule], state: ComputeState) -> None:
        super().__init__(rules, nova_fault, max_body_size=MAX_BODY)
        self.state = state

    def handle(self, request: Request) -> Response:
        response = super().handle(request)
        version = request.environ.get("saphira.compute.version")
        if isinstance(version, Version):
            response.headers.update(microversion.response_headers(version))
        elif request.path.rstrip("/") not in ("", "/v2", "/v2.1"):
            response.headers["Vary"] = microversion.VARY
        return response

    def dispatch(self, request: Request, endpoint: Any, args: Mapping[str, Any]) -> Response:
        assert isinstance(endpoint, Endpoint)
        if endpoint.public and endpoint.with_call:
            with self.state.directory.api() as session:
                return endpoint.handlers[0](Call(request, microversion.MIN, self.state, session))
        if endpoint.public:
            return endpoint.handlers[0](request)
        headers = {key.lower(): value for key, value in request.headers.items()}
        version = microversion.negotiate(headers)
        request.environ["saphira.compute.version"] = version
        handler = endpoint.pick(version)
        kwargs = dict(args)
        project_id = kwargs.pop("project_id", None)
        context = request.environ.get(CONTEXT_KEY)
        if project_id and isinstance(context, RequestContext) and project_id != context.project_id:
            raise exception.BadRequest(
                f"Malformed request URL: URL's project_id '{project_id}' doesn't match "
                f"Context's project_id '{context.project_id}'"
            )
        with self.state.directory.api() as session:
            call = Call(request, version, self.state, session, project_id)
            return handler(call, **kwargs)
