"""AuthTokenMiddleware: X-Auth-Token in, RequestContext in the environ out.

As keystonemiddleware with ``service_token_roles``: a user token that failed
validation (expired) is still accepted, within the identity service's
``allow_expired_window``, when the request also carries a valid
``X-Service-Token`` with the service or admin role, so a service can finish
work a user started (Nova's ports made with the user's token minutes later).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from oslo_config import cfg

from saphira.api.wsgi.logcontext import set_identity
from saphira.api.wsgi.request_id import ENV_GLOBAL_REQUEST_ID, ENV_REQUEST_ID
from saphira.context import RequestContext
from saphira.exception import SaphiraError, Unauthorized

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

CONTEXT_KEY = "saphira.context"


def request_context(environ: Mapping[str, Any]) -> RequestContext:
    """The caller this middleware validated; Unauthorized if the request skipped it."""
    context = environ.get(CONTEXT_KEY)
    if not isinstance(context, RequestContext):
        raise Unauthorized()
    return context


MAX_CACHED = 10000
MAX_TOKEN = 8192
SERVICE_ROLES = frozenset({"service", "admin"})


@dataclass(frozen=True)
class ValidatedToken:
    context: RequestContext
    expires_at: dt.datetime  # naive UTC


class TokenValidator(Protocol):
    def validate(self, token: str, allow_expired: bool = False) -> ValidatedToken:
        """The token's context; Unauthorized if invalid, ServiceUnavailable if unsure.
        ``allow_expired``: an expired one too, within the identity service's window."""
        ...


class _Cache:
    """Validated tokens by hash, each until min(cache time, token expiry)."""

    def __init__(self, seconds: int) -> None:
        self.seconds = seconds
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[float, ValidatedToken]] = {}

    @staticmethod
    def _key(token: str) -> str:
        return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()

    def get(self, token: str) -> ValidatedToken | None:
        with self._lock:
            entry = self._entries.get(self._key(token))
        if entry is None or entry[0] <= time.monotonic():
            return None
        return entry[1]

    def put(self, token: str, result: ValidatedToken) -> None:
        if self.seconds <= 0:
            return
        left = (result.expires_at - dt.datetime.now(dt.UTC).replace(tzinfo=None)).total_seconds()
        until = time.monotonic() + min(self.seconds, left)
        with self._lock:
            if len(self._entries) >= MAX_CACHED:
                now = time.monotonic()
                self._entries = {k: v for k, v in self._entries.items() if v[0] > now}
                if len(self._entries) >= MAX_CACHED:
                    self._entries.clear()
            self._entries[self._key(token)] = (until, result)


class AuthTokenMiddleware:
    def __init__(
        self,
        app: WSGIApplication,
        validator: TokenValidator,
        *,
        www_authenticate_uri: str,
        cache_time: int = 300,
        is_admin: Callable[[RequestContext], bool] | None = None,
    ) -> None:
        self.app = app
        self.validator = validator
        self.is_admin = is_admin
        self.www_authenticate_uri = www_authenticate_uri
        self.cache = _Cache(cache_time)

    def validate(self, token: str) -> ValidatedToken:
        cached = self.cache.get(token)
        if cached is not None:
            return cached
        result = self.validator.validate(token)
        self.cache.put(token, result)
        return result

    def _user(self, token: str, service_token: str) -> ValidatedToken:
        try:
            return self.validate(token)
        except Unauthorized:
            if not self._service_vouches(service_token):
                raise
        return self.validator.validate(token, allow_expired=True)  # expired: never cached

    def _service_vouches(self, service_token: str) -> bool:
        if not _well_formed(service_token):
            return False
        try:
            service = self.validate(service_token)
        except Unauthorized:
            return False
        return bool(SERVICE_ROLES & set(service.context.roles))

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        token = environ.get("HTTP_X_AUTH_TOKEN", "")
        try:
            if not _well_formed(token):
                raise Unauthorized()
            result = self._user(token, environ.get("HTTP_X_SERVICE_TOKEN", ""))
        except SaphiraError as error:
            return self._reject(error, start_response)
        context = replace(
            result.context,
            request_id=environ.get(ENV_REQUEST_ID) or result.context.request_id,
            global_request_id=environ.get(ENV_GLOBAL_REQUEST_ID),
            auth_token=token,
        )
        if self.is_admin is not None:  # per request: a changed policy.yaml applies at once
            context = replace(context, admin_by_policy=self.is_admin(context))
        environ[CONTEXT_KEY] = context
        set_identity(context.user_id, context.project_id)
        return self.app(environ, start_response)

    def _reject(self, error: SaphiraError, start_response: StartResponse) -> Iterable[bytes]:
        """Keystone-shaped error, as keystonemiddleware answers before the API sees it."""
        if error.code >= 500 and error.code != 503:
            error = SaphiraError()
        body = {"error": {"code": error.code, "message": error.message, "title": error.title}}
        data = json.dumps(body).encode("utf-8")
        headers = [("Content-Type", "application/json"), ("Content-Length", str(len(data)))]
        if error.code == 401:
            headers.append(("WWW-Authenticate", f'Keystone uri="{self.www_authenticate_uri}"'))
        start_response(f"{error.code} {error.title}", headers)
        return [data]


def _well_formed(token: str) -> bool:
    return bool(token) and len(token) <= MAX_TOKEN and token.isprintable()


def from_conf(
    app: WSGIApplication,
    conf: cfg.ConfigOpts,
    validator: TokenValidator | None = None,
    is_admin: Callable[[RequestContext], bool] | None = None,
) -> AuthTokenMiddleware:
    """Wrap ``app`` as [keystone_authtoken] says; remote validation unless told otherwise.

    ``is_admin`` (the API's ``Enforcer.is_admin``) decides each caller's
    ``RequestContext.is_admin`` by the context_is_admin rule."""
    from saphira.api.auth.validators import RemoteValidator

    group = conf.keystone_authtoken
    uri = group.www_authenticate_uri or group.auth_url or ""
    return AuthTokenMiddleware(
        app,
        validator or RemoteValidator.from_conf(conf),
        www_authenticate_uri=uri,
        cache_time=group.token_cache_time,
        is_admin=is_admin,
    )
