"""The Neutron v2.0 compatible network API over saphira.netsvc.

``build_app(conf)`` is the whole service as one WSGI callable: request ids
outermost, the version document before authentication, then the token
middleware and the routed app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oslo_config import cfg
from werkzeug.routing import Rule

from saphira.api import openapi
from saphira.api.auth import TokenValidator, from_conf
from saphira.api.network import (
    agents,
    extensions,
    networks,
    ports,
    quotas,
    secgroups,
    subnets,
    versions,
)
from saphira.api.network.app import Backend, NetworkApp
from saphira.api.openapi import OpenAPIFirst
from saphira.api.wsgi import RequestIdMiddleware
from saphira.db.network import Database, make_network_engine
from saphira.netsvc import settings
from saphira.netsvc.agent_notifier import AgentNotifier
from saphira.policy import Enforcer

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication


def build_backend(conf: cfg.ConfigOpts) -> Backend:
    """Database, settings and policy from the configuration; the database must be synced."""
    db = Database(make_network_engine(conf))
    return Backend(db, settings.from_conf(conf), Enforcer(conf), AgentNotifier(conf))


def routes() -> list[Rule]:
    """Every route of the API in matching order (the policy matrix test reads it)."""
    return [
        *versions.routes(),
        *extensions.routes(),
        *networks.routes(),
        *subnets.routes(),
        *ports.routes(),
        *secgroups.routes(),
        *agents.routes(),
        *quotas.routes(),
    ]


def build_network_app(backend: Backend) -> NetworkApp:
    rules = routes()
    return NetworkApp(rules, backend)


def build_app(
    conf: cfg.ConfigOpts,
    validator: TokenValidator | None = None,
    backend: Backend | None = None,
) -> WSGIApplication:
    backend = backend or build_backend(conf)
    app = build_network_app(backend)
    authenticated = from_conf(app, conf, validator, is_admin=backend.enforcer.is_admin)
    described = OpenAPIFirst(authenticated, openapi.described("network"))
    return RequestIdMiddleware(versions.VersionsFirst(described))


__all__ = ["build_app", "build_backend", "build_network_app", "routes"]
