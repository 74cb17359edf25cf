"""The Placement API over saphira.placement.

``build_app(conf)`` is the whole service as one WSGI callable: request ids
outermost, then token validation for everything but the version document
at ``/``, then the placement app.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from oslo_config import cfg
from werkzeug.routing import Rule

from saphira.api import openapi
from saphira.api.auth import TokenValidator, from_conf
from saphira.api.openapi import OpenAPIFirst
from saphira.api.placement import allocations, candidates, classes_traits, inventories, providers
from saphira.api.placement.app import PlacementApp
from saphira.api.wsgi import RequestIdMiddleware
from saphira.db.placement import Database, make_placement_engine
from saphira.policy import Enforcer

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment


class _PublicRoot:
    """``GET /`` (version discovery) needs no token; all else goes through auth."""

    def __init__(self, app: WSGIApplication, authed: WSGIApplication) -> None:
        self.app = app
        self.authed = authed

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO", "") in ("", "/"):
            return self.app(environ, start_response)
        return self.authed(environ, start_response)


def routes() -> list[Rule]:
    """Every route of the API in matching order (the policy matrix test reads it)."""
    return [
        *providers.routes(),
        *inventories.routes(),
        *classes_traits.routes(),
        *allocations.routes(),
        *candidates.routes(),
    ]


def build_placement_app(conf: cfg.ConfigOpts, db: Database) -> PlacementApp:
    rules = routes()
    return PlacementApp(
        rules,
        db,
        Enforcer(conf),
        max_body_size=conf.placement_api.max_request_body_size,
        retries=conf.placement_api.allocation_conflict_retry_count,
    )


def build_app(
    conf: cfg.ConfigOpts,
    validator: TokenValidator | None = None,
    db: Database | None = None,
) -> WSGIApplication:
    """The placement WSGI app; the database must be synced (saphira up does it)."""
    db = db or Database(make_placement_engine(conf))
    app = build_placement_app(conf, db)
    served = _PublicRoot(app, from_conf(app, conf, validator))
    return RequestIdMiddleware(OpenAPIFirst(served, openapi.described("placement")))


__all__ = ["build_app", "build_placement_app", "routes"]
