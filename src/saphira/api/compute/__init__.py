"""The Nova v2.1 compute API (port 8774).

``build_app(conf)`` is the service as one WSGI callable: the version
documents and a join token's redemption (``compute_join``) are public,
every other path goes through token validation
([keystone_authtoken], as every API here) and then the compute app.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from oslo_config import cfg
from werkzeug.routing import Rule

from saphira.api import auth, openapi
from saphira.api.compute import (
    aggregates,
    availability_zones,
    compute_join,
    consoles,
    flavor_extras,
    flavors,
    hypervisors,
    image_metadata,
    images,
    instance_actions,
    keypairs,
    migrations,
    networks,
    quota_classes,
    quotas,
    security_groups,
    server_actions,
    server_groups,
    server_interfaces,
    server_ips,
    server_metadata,
    server_password,
    server_security_groups,
    servers,
    services,
    versions,
)
from saphira.api.compute.app import ComputeApp
from saphira.api.compute.state import ComputeState
from saphira.api.openapi import OpenAPIFirst
from saphira.api.wsgi import RequestIdMiddleware
from saphira.domain.join_token import REDEEM_PATH

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment


class PublicOrAuthenticated:
    """Version documents without a token; everything else through the auth middleware."""

    def __init__(self, app: WSGIApplication, authenticated: WSGIApplication) -> None:
        self.app = app
        self.authenticated = authenticated

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO", "") in UNAUTHENTICATED:
            return self.app(environ, start_response)
        return self.authenticated(environ, start_response)


UNAUTHENTICATED = versions.PUBLIC_PATHS | {REDEEM_PATH}  # REDEEM_PATH: a join token instead


def routes() -> list[Rule]:
    """Every route of the API in matching order (the policy matrix test reads it)."""
    return [
        *versions.routes(),
        *compute_join.routes(),
        *flavors.routes(),
        *flavor_extras.routes(),
        *keypairs.routes(),
        *quotas.routes(),
        *quota_classes.routes(),
        *server_groups.routes(),
        *availability_zones.routes(),
        *services.routes(),
        *hypervisors.routes(),
        *aggregates.routes(),
        *servers.routes(),
        *server_actions.routes(),
        *consoles.routes(),
        *server_metadata.routes(),
        *server_ips.routes(),
        *server_interfaces.routes(),
        *server_security_groups.routes(),
        *instance_actions.routes(),
        *migrations.routes(),
        *networks.routes(),
        *security_groups.routes(),
        *images.routes(),
        *image_metadata.routes(),
        *server_password.routes(),
    ]


def build_compute_app(state: ComputeState) -> ComputeApp:
    rules = routes()
    return ComputeApp(rules, state)


def build_app(
    conf: cfg.ConfigOpts, validator: auth.TokenValidator | None = None
) -> WSGIApplication:
    """The compute WSGI app; the API database must be synced."""
    state = ComputeState.from_conf(conf)
    app = build_compute_app(state)
    checked = auth.from_conf(app, conf, validator, is_admin=state.enforcer.is_admin)
    authenticated = PublicOrAuthenticated(app, checked)
    described = OpenAPIFirst(authenticated, openapi.described("compute"))
    return RequestIdMiddleware(described, also=("X-Compute-Request-Id",))


__all__ = ["build_app", "build_compute_app", "routes"]
