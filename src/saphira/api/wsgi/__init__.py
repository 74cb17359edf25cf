"""The common HTTP layer: a Werkzeug-routed app, JSON in and out, faults
mapped once per API, and request ids in every response and log line."""

from saphira.api.wsgi.app import Application, FaultFormatter, Handler, Request
from saphira.api.wsgi.body import json_body, json_response, validate
from saphira.api.wsgi.logcontext import LOG_FORMAT, RequestLogFilter, set_identity
from saphira.api.wsgi.request_id import RequestIdMiddleware

__all__ = [
    "LOG_FORMAT",
    "Application",
    "FaultFormatter",
    "Handler",
    "Request",
    "RequestIdMiddleware",
    "RequestLogFilter",
    "json_body",
    "json_response",
    "set_identity",
    "validate",
]
