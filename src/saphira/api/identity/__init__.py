"""The Keystone v3 API over saphira.identity.

``build_app(conf)`` is the whole service as one WSGI callable, with the
request-id middleware outermost so every response and log line has an id.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oslo_config import cfg
from werkzeug.routing import Rule

from saphira.api import openapi
from saphira.api.identity import assignments, catalog, projects, roles, tokens, users, versions
from saphira.api.identity.app import IdentityApp
from saphira.api.openapi import OpenAPIFirst
from saphira.api.wsgi import RequestIdMiddleware
from saphira.conf.ssl import scheme
from saphira.identity.backend import IdentityBackend
from saphira.policy import Enforcer

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication


def public_url(conf: cfg.ConfigOpts) -> str:
    """The identity endpoint as clients reach it (www_authenticate_uri if set)."""
    configured: str | None = conf.keystone_authtoken.www_authenticate_uri
    if configured:
        return configured.rstrip("/")
    return f"{scheme(conf)}://{conf.my_ip}:{conf.identity.port + conf.port_offset}"


def routes() -> list[Rule]:
    """Every route of the API in matching order (the policy matrix test reads it)."""
    return [
        *versions.routes(),
        *tokens.routes(),
        *projects.routes(),
        *users.routes(),
        *roles.routes(),
        *assignments.routes(),
        *catalog.routes(),
    ]


def build_identity_app(conf: cfg.ConfigOpts, backend: IdentityBackend) -> IdentityApp:
    rules = routes()
    return IdentityApp(
        rules,
        backend,
        Enforcer(conf),
        max_body_size=conf.identity.max_request_body_size,
        www_authenticate=public_url(conf),
    )


def build_app(conf: cfg.ConfigOpts, backend: IdentityBackend | None = None) -> WSGIApplication:
    """The identity WSGI app; the database must be synced and the keys set up."""
    backend = backend or IdentityBackend.from_conf(conf)
    backend.keys.load()  # fail now, naming the fix, rather than on the first token
    app = build_identity_app(conf, backend)
    return RequestIdMiddleware(OpenAPIFirst(app, openapi.described("identity")))


__all__ = ["build_app", "build_identity_app", "public_url", "routes"]
