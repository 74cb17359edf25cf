"""Token validators: over HTTP with a service token, or in process."""

from __future__ import annotations

import datetime as dt
from typing import Any

from oslo_config import cfg

from saphira.api.auth.middleware import ValidatedToken
from saphira.clients.identity import Credentials, TokenValidator
from saphira.context import RequestContext
from saphira.exception import ConfigError
from saphira.identity.backend import IdentityBackend

TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
TIMEOUT = 10


def _parse_time(value: str) -> dt.datetime:
    return dt.datetime.strptime(value, TIME_FORMAT)


def context_from_body(token: dict[str, Any], raw: str) -> ValidatedToken:
    """A context from Keystone's token body ({"token": {...}} already unwrapped)."""
    user, project = token["user"], token.get("project")
    system = token.get("system") or {}
    context = RequestContext(
        user_id=user["id"],
        user_name=user.get("name"),
        user_domain_id=(user.get("domain") or {}).get("id"),
        project_id=project["id"] if project else None,
        project_name=project.get("name") if project else None,
        project_domain_id=(project.get("domain") or {}).get("id") if project else None,
        domain_id=(token.get("domain") or {}).get("id"),
        system_scope="all" if system.get("all") else None,
        roles=tuple(r["name"] for r in token.get("roles", [])),
        auth_token=raw,
    )
    return ValidatedToken(context, _parse_time(token["expires_at"]))


class LocalValidator:
    """Validate against an identity backend in this process (the all-in-one cloud)."""

    def __init__(self, backend: IdentityBackend) -> None:
        self.backend = backend

    def validate(self, token: str, allow_expired: bool = False) -> ValidatedToken:
        with self.backend.session() as session:
            data = self.backend.validate_token(session, token, allow_expired)
        return ValidatedToken(data.to_context("-"), data.payload.expires_at)


class RemoteValidator:
    """GET {auth_url}/v3/auth/tokens with our own service token, as keystonemiddleware does
    (the HTTP is ``saphira.clients.identity.TokenValidator``'s)."""

    def __init__(
        self,
        auth_url: str,
        *,
        username: str,
        password: str,
        project_name: str,
        user_domain_name: str = "Default",
        project_domain_name: str = "Default",
    ) -> None:
        credentials = Credentials(
            auth_url, username, password, project_name, user_domain_name, project_domain_name
        )
        self.remote = TokenValidator(credentials, timeout=TIMEOUT)

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> RemoteValidator:
        group = conf.keystone_authtoken
        if not (group.auth_url and group.username and group.password):
            raise ConfigError("[keystone_authtoken] auth_url, username and password must be set")
        return cls(
            group.auth_url,
            username=group.username,
            password=group.password,
            project_name=group.project_name,
            user_domain_name=group.user_domain_name,
            project_domain_name=group.project_domain_name,
        )

    def validate(self, token: str, allow_expired: bool = False) -> ValidatedToken:
        return context_from_body(self.remote.validate(token, allow_expired), token)
