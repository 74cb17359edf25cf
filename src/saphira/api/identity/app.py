"""The identity WSGI app: authentication, one transaction and policy per request."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session
from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira import exception
from saphira.api.wsgi import Application, Request, json_body, set_identity, validate
from saphira.api.wsgi.request_id import ENV_GLOBAL_REQUEST_ID
from saphira.context import RequestContext
from saphira.identity.auth import TokenData
from saphira.identity.backend import IdentityBackend
from saphira.identity.resources import DEFAULT_DOMAIN_ID
from saphira.policy import Enforcer

AUTH_HEADER = "X-Auth-Token"


@dataclass
class Call:
    """Everything a handler needs: the request, its transaction and its caller."""

    request: Request
    session: Session
    backend: IdentityBackend
    enforcer: Enforcer
    www_authenticate: str
    caller: TokenData | None = None

    @property
    def base(self) -> str:
        return self.request.url_root.rstrip("/")

    def link(self, path: str) -> dict[str, str]:
        return {"self": f"{self.base}/v3/{path}"}

    def list_links(self) -> dict[str, str | None]:
        return {"self": self.request.url, "previous": None, "next": None}

    @property
    def source(self) -> str:
        """The client's address, as the failed-login throttle counts it."""
        return self.request.remote_addr or "unknown"

    @property
    def context(self) -> RequestContext:
        if self.caller is None:
            raise exception.Unauthorized()
        return self.caller.to_context(
            self.request.request_id,
            global_request_id=self.request.environ.get(ENV_GLOBAL_REQUEST_ID),
        )

    def enforce(self, rule: str, target: Mapping[str, Any] | None = None) -> None:
        self.enforcer.enforce(self.context, rule, target or {})

    def body(self, schema: dict[str, Any]) -> dict[str, Any]:
        data = json_body(self.request)
        validate(data, schema)
        assert isinstance(data, dict)  # the schema demands an object
        return data

    def default_domain_id(self) -> str:
        """The domain a create lands in when the body names none: the caller's project's."""
        if self.caller is not None and self.caller.project is not None:
            return str(self.caller.project.domain.id)
        return DEFAULT_DOMAIN_ID

    def query_bool(self, name: str) -> bool | None:
        value = self.request.args.get(name)
        if value is None:
            return None
        return value.lower() not in ("0", "false", "no", "off")


Handler = Callable[..., Response]


@dataclass(frozen=True)
class Route:
    handler: Handler
    public: bool = False


def route(
    path: str,
    methods: list[str],
    handler: Handler,
    *,
    public: bool = False,
    defaults: dict[str, Any] | None = None,
) -> Rule:
    return Rule(path, methods=methods, endpoint=Route(handler, public), defaults=defaults)


def keystone_fault(error: exception.SaphiraError) -> dict[str, Any]:
    return {"error": {"code": error.code, "message": error.message, "title": error.title}}


class IdentityApp(Application):
    def __init__(
        self,
        rules: list[Rule],
        backend: IdentityBackend,
        enforcer: Enforcer,
        *,
        max_body_size: int,
        www_authenticate: str,
    ) -> None:
        super().__init__(rules, keystone_fault, max_body_size=max_body_size)
        self.backend = backend
        self.enforcer = enforcer
        self.www_authenticate = www_authenticate

    def dispatch(self, request: Request, endpoint: Any, args: Mapping[str, Any]) -> Response:
        assert isinstance(endpoint, Route)
        with self.backend.session() as session:
            call = Call(request, session, self.backend, self.enforcer, self.www_authenticate)
            if not endpoint.public:
                token = request.headers.get(AUTH_HEADER)
                if not token:
                    raise exception.Unauthorized()
                call.caller = self.backend.validate_token(session, token)
                project = call.caller.project.id if call.caller.project else None
                set_identity(call.caller.user.id, project)
            return endpoint.handler(call, **args)

    def fault(self, error: exception.SaphiraError) -> Response:
        response = super().fault(error)
        if error.code == 401:
            response.headers["WWW-Authenticate"] = f'Keystone uri="{self.www_authenticate}"'
        if "retry_after" in error.kwargs:
            response.headers["Retry-After"] = str(error.kwargs["retry_after"])
        return response
