"""Service credentials: a Keystone token for a [placement]-style section
(password plugin), renewed before it expires, and where the local services are.

Agents and the conductor talk to placement and the image service as their
own service user, as Nova does with keystoneauth; a token is fetched once and
reused until five minutes before its expiry.
"""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import requests
from oslo_config import cfg

from saphira import exception
from saphira.common import tls
from saphira.conf import endpoints
from saphira.conf.ssl import scheme

_MARGIN = dt.timedelta(minutes=5)


class PasswordToken:
    """A callable returning a valid token for one service user."""

    def __init__(self, section: Any, *, timeout: float = 30) -> None:
        self.section = section
        self.timeout = timeout
        self._token: str | None = None
        self._expires = dt.datetime.min.replace(tzinfo=dt.UTC)
        self._lock = threading.Lock()

    def __call__(self) -> str:
        with self._lock:
            if self._token is None or dt.datetime.now(dt.UTC) + _MARGIN >= self._expires:
                self._token, self._expires = self._fetch()
            return self._token

    def _fetch(self) -> tuple[str, dt.datetime]:
        s = self.section
        if not (s.auth_url and s.username and s.password):
            raise exception.ConfigError("service credentials (auth_url, username, password) unset")
        body = {
            "auth": {
                "identity": {
                    "methods": ["password"],
                    "password": {
                        "user": {
                            "name": s.username,
                            "password": s.password,
                            "domain": {"name": s.user_domain_name},
                        }
                    },
                },
                "scope": {
                    "project": {"name": s.project_name, "domain": {"name": s.project_domain_name}}
                },
            }
        }
        url = str(s.auth_url).rstrip("/")
        url = url if url.endswith("/v3") else url + "/v3"
        try:
            response = requests.post(
                f"{url}/auth/tokens", json=body, timeout=self.timeout, verify=tls.verify()
            )
        except requests.RequestException as error:
            raise exception.ServiceUnavailable(f"identity unreachable: {error}") from None
        if response.status_code != 201:
            raise exception.Unauthorized(f"service user {s.username}: {response.status_code}")
        expires = dt.datetime.fromisoformat(response.json()["token"]["expires_at"])
        if expires.tzinfo is None:
            expires = expires.replace(tzinfo=dt.UTC)
        return response.headers["X-Subject-Token"], expires


def local_url(conf: cfg.ConfigOpts, catalog_type: str) -> str:
    """The all-in-one's own endpoint for ``catalog_type``."""
    endpoint = endpoints.by_type(catalog_type)
    port = endpoints.listen_port(conf, endpoint)
    return f"{scheme(conf)}://127.0.0.1:{port}{endpoint.path}"


def service_url(conf: cfg.ConfigOpts, group: str, catalog_type: str) -> str:
    """``[group] endpoint_override`` (another host's service), else ``local_url``."""
    override = conf[group].endpoint_override
    return str(override).rstrip("/") if override else local_url(conf, catalog_type)


def image_url(conf: cfg.ConfigOpts) -> str:
    servers = list(conf.glance.api_servers or [])
    return (servers[0] if servers else local_url(conf, "image")).rstrip("/")
