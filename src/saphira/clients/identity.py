"""Keystone v3 as the services reach it: the service user's token, and token validation.

``PasswordToken`` is a callable returning a valid token for one service
user (a ``[placement]``-style section, or ``Credentials``): fetched once,
reused until five minutes before it expires, fetched again on demand
(``renew``). ``TokenValidator`` is keystonemiddleware's remote check:
``GET /v3/auth/tokens`` with the subject token in ``X-Subject-Token`` and
our own token in ``X-Auth-Token``; our own is renewed once if Keystone
says it went stale (401). Both ask for no catalog.
"""

from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass
from typing import Any

from saphira import exception
from saphira.clients.base import ServiceClient
from saphira.clients.transport import Transport

MARGIN = dt.timedelta(minutes=5)
TokenBody = dict[str, Any]  # Keystone's {"token": {...}} contents, as it sends them


@dataclass(frozen=True)
class Credentials:
    """A service user, named as in a ``[keystone_authtoken]``-style section."""

    auth_url: str
    username: str
    password: str
    project_name: str
    user_domain_name: str = "Default"
    project_domain_name: str = "Default"


def v3(auth_url: str) -> str:
    base = str(auth_url).rstrip("/")
    return base if base.endswith("/v3") else base + "/v3"


class IdentityClient(ServiceClient):
    service = "identity"

    def __init__(self, auth_url: str, *, timeout: float = 30, transport: Transport | None = None):
        super().__init__(v3(auth_url), timeout=timeout, transport=transport)

    def password_token(self, s: Any) -> tuple[str, dt.datetime]:
        """A project-scoped token for the user of section ``s``, and when it expires."""
        body = {"auth": {
            "identity": {"methods": ["password"], "password": {"user": {
                "name": s.username, "password": s.password,
                "domain": {"name": s.user_domain_name},
            }}},
            "scope": {"project": {"name": s.project_name,
                                  "domain": {"name": s.project_domain_name}}},
        }}  # fmt: skip
        reply = self.request(
            "POST", "/auth/tokens", json=body, params={"nocatalog": "1"}, raise_refusal=False
        )
        if reply.status == 429 or reply.status >= 500:  # identity is busy or away: for now
            raise exception.ServiceUnavailable(
                f"identity refused a token to service user {s.username} for now "
                f"(HTTP {reply.status}); retry later"
            )
        if reply.status != 201:
            raise exception.Unauthorized(
                f"service user {s.username}: {reply.status}", status=reply.status
            )
        expires = dt.datetime.fromisoformat(reply.json()["token"]["expires_at"])
        token = reply.header("X-Subject-Token")
        if token is None:
            raise exception.ServiceUnavailable("identity issued a token without X-Subject-Token")
        return token, expires if expires.tzinfo else expires.replace(tzinfo=dt.UTC)


class PasswordToken:
    """A callable returning a valid token for one service user."""

    def __init__(
        self, section: Any, *, timeout: float = 30, transport: Transport | None = None
    ) -> None:
        self.section = section
        self.timeout = timeout
        self.transport = transport
        self._client: IdentityClient | None = None  # made on first use: one connection pool
        self._token: str | None = None
        self._expires = dt.datetime.min.replace(tzinfo=dt.UTC)
        self._lock = threading.Lock()

    def __call__(self) -> str:
        with self._lock:
            if self._token is None or dt.datetime.now(dt.UTC) + MARGIN >= self._expires:
                self._token, self._expires = self._fetch()
            return self._token

    def renew(self) -> str:
        with self._lock:
            self._token, self._expires = self._fetch()
            return self._token

    def _fetch(self) -> tuple[str, dt.datetime]:
        s = self.section
        if not (s.auth_url and s.username and s.password):
            raise exception.ConfigError("service credentials (auth_url, username, password) unset")
        if self._client is None:
            self._client = IdentityClient(
                s.auth_url, timeout=self.timeout, transport=self.transport
            )
        return self._client.password_token(s)


class TokenValidator:
    """Validate user tokens against Keystone as ``credentials``' user."""

    def __init__(
        self, credentials: Credentials, *, timeout: float = 10, transport: Transport | None = None
    ) -> None:
        self.client = IdentityClient(credentials.auth_url, timeout=timeout, transport=transport)
        self.service_token = PasswordToken(
            credentials, timeout=timeout, transport=self.client.transport
        )

    def validate(self, token: str, allow_expired: bool = False) -> TokenBody:
        """The token's body; Unauthorized if Keystone does not know it (404)."""
        params = {"nocatalog": "1", **({"allow_expired": "1"} if allow_expired else {})}
        status = 0
        for renew in (False, True):
            headers = {"X-Auth-Token": self._own(renew), "X-Subject-Token": token}
            reply = self.client.request(
                "GET", "/auth/tokens", params=params, headers=headers, raise_refusal=False
            )
            status = reply.status
            if status == 200:
                body: TokenBody = reply.json()["token"]
                return body
            if status == 404:
                raise exception.Unauthorized()
            if status != 401:
                break  # 401 means our own token went stale: renew once
        raise exception.ServiceUnavailable(f"Token validation failed (HTTP {status}).")

    def _own(self, renew: bool) -> str:
        try:
            return self.service_token.renew() if renew else self.service_token()
        except exception.Unauthorized as error:
            status = error.kwargs.get("status", "?")
            raise exception.ServiceUnavailable(
                f"Service user cannot authenticate (HTTP {status})."
            ) from None
