"""The metadata API (Nova's ``nova-api-metadata``, port 8775).

Guests reach it through the metadata proxy of their network, which signs the
instance id (``signature``); answers come from ``saphira.metadata``, the
builder the config drive uses too, cached per instance (``cache``). No
tokens: the proxy's signature is the only credential.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from oslo_config import cfg
from werkzeug.routing import Rule

from saphira.api import openapi
from saphira.api.metadata.app import MetadataApp, MetadataState
from saphira.api.metadata.app import routes as _routes
from saphira.api.openapi import OpenAPIFirst
from saphira.api.wsgi import RequestIdMiddleware

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication


def routes() -> list[Rule]:
    return _routes()


def build_app(conf: cfg.ConfigOpts) -> WSGIApplication:
    """The metadata WSGI app; the API and cell databases must be synced."""
    app = MetadataApp(MetadataState.from_conf(conf))
    return RequestIdMiddleware(OpenAPIFirst(app, openapi.described("metadata")))


__all__ = ["MetadataApp", "MetadataState", "build_app", "routes"]
