"""Token validators: over HTTP with a service token, or in process."""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import requests
from oslo_config import cfg

from saphira.api.auth.middleware import ValidatedToken
from saphira.common import tls
from saphira.context import RequestContext
from saphira.exception import ConfigError, ServiceUnavailable, Unauthorized
from saphira.identity.backend import IdentityBackend

TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
TIMEOUT = 10
REFRESH_MARGIN = dt.timedelta(seconds=60)


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
    """GET {auth_url}/v3/auth/tokens with our own service token, as keystonemiddleware does."""

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
        base = auth_url.rstrip("/")
        self.url = (base if base.endswith("/v3") else f"{base}/v3") + "/auth/tokens"
        self.credentials = {
            "identity": {
                "methods": ["password"],
                "password": {
                    "user": {
                        "name": username,
                        "password": password,
                        "domain": {"name": user_domain_name},
                    }
                },
            },
            "scope": {"project": {"name": project_name, "domain": {"name": project_domain_name}}},
        }
        self.http = requests.Session()
        self._lock = threading.Lock()
        self._service: tuple[str, dt.datetime] | None = None

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

    def _request(self, method: str, **kwargs: Any) -> requests.Response:
        try:
            return self.http.request(
                method, self.url, timeout=TIMEOUT, verify=tls.verify(), **kwargs
            )
        except requests.RequestException as error:
            raise ServiceUnavailable(f"Identity service unreachable: {error}") from None

    def _service_token(self, renew: bool = False) -> str:
        with self._lock:
            now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
            if renew or self._service is None or self._service[1] - REFRESH_MARGIN <= now:
                response = self._request(
                    "POST", params={"nocatalog": "1"}, json={"auth": self.credentials}
                )
                if response.status_code != 201:
                    raise ServiceUnavailable(
                        f"Service user cannot authenticate (HTTP {response.status_code})."
                    )
                expires = _parse_time(response.json()["token"]["expires_at"])
                self._service = (response.headers["X-Subject-Token"], expires)
            return self._service[0]

    def validate(self, token: str, allow_expired: bool = False) -> ValidatedToken:
        params = {"nocatalog": "1", **({"allow_expired": "1"} if allow_expired else {})}
        for renew in (False, True):
            headers = {"X-Auth-Token": self._service_token(renew), "X-Subject-Token": token}
            response = self._request("GET", params=params, headers=headers)
            if response.status_code == 200:
                return context_from_body(response.json()["token"], token)
            if response.status_code == 404:
                raise Unauthorized()
            if response.status_code != 401:
                break  # 401 means our own token went stale: renew once
        raise ServiceUnavailable(f"Token validation failed (HTTP {response.status_code}).")
