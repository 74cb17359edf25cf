"""A Werkzeug application with one place where errors become responses.

Handlers raise saphira.exception errors; ``Application`` turns them into the
API's own error body through its fault formatter (Keystone and Nova shape
errors differently), and anything unexpected into a logged 500 that shows no
traceback to the caller.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from werkzeug import exceptions as http
from werkzeug.routing import Map, Rule
from werkzeug.wrappers import Request as WerkzeugRequest
from werkzeug.wrappers import Response

from saphira import exception
from saphira.api.wsgi.body import json_response
from saphira.api.wsgi.request_id import ENV_REQUEST_ID

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

LOG = logging.getLogger(__name__)

FaultFormatter = Callable[[exception.SaphiraError], dict[str, Any]]
Handler = Callable[..., Response]


class Request(WerkzeugRequest):
    """A request that knows its body-size limit and its request id."""

    max_body_size: int = 1024 * 1024

    @property
    def request_id(self) -> str:
        return str(self.environ.get(ENV_REQUEST_ID, "-"))


def _from_werkzeug(error: http.HTTPException) -> exception.SaphiraError:
    if isinstance(error, http.NotFound):
        return exception.NotFound()
    if isinstance(error, http.MethodNotAllowed):
        return exception.MethodNotAllowed()
    if isinstance(error, http.RequestEntityTooLarge):
        return exception.PayloadTooLarge()
    if isinstance(error, http.UnsupportedMediaType):
        return exception.UnsupportedMediaType()
    if isinstance(error, http.BadRequest):
        return exception.BadRequest(error.description)
    return exception.SaphiraError()


class Application:
    """Route, dispatch, and map every error to a response exactly once."""

    request_class: type[Request] = Request

    def __init__(
        self,
        rules: Iterable[Rule],
        fault_formatter: FaultFormatter,
        *,
        max_body_size: int = 1024 * 1024,
        strict_slashes: bool = False,
    ) -> None:
        """``strict_slashes``: a path with a trailing slash its rule lacks is a 404
        (Glance's router), instead of the same resource."""
        self.url_map = Map(list(rules), strict_slashes=strict_slashes, merge_slashes=False)
        self.fault_formatter = fault_formatter
        self.max_body_size = max_body_size

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        request = self.request_class(environ)
        request.max_body_size = self.max_body_size
        response = self.handle(request)
        return response(environ, start_response)

    def handle(self, request: Request) -> Response:
        adapter = self.url_map.bind_to_environ(request.environ)
        try:
            endpoint, args = adapter.match()
            response: Response = self.dispatch(request, endpoint, args)
            return response
        except exception.SaphiraError as error:
            return self.fault(error)
        except http.MethodNotAllowed as error:
            response = self.fault(_from_werkzeug(error))
            response.headers["Allow"] = ", ".join(sorted(error.valid_methods or []))
            return response
        except http.HTTPException as error:
            return self.fault(_from_werkzeug(error))
        except Exception:
            LOG.exception("Unexpected error in %s %s", request.method, request.path)
            return self.fault(exception.SaphiraError())

    def dispatch(self, request: Request, endpoint: Handler, args: Mapping[str, Any]) -> Response:
        """Call the handler; subclasses wrap this (authentication, a transaction)."""
        return endpoint(request, **args)

    def fault(self, error: exception.SaphiraError) -> Response:
        error = public_error(error)
        return json_response(self.fault_formatter(error), status=error.code)


def public_error(error: exception.SaphiraError) -> exception.SaphiraError:
    """What the caller may see: deliberate 5xx answers keep their message, others
    become a bare 500 so internals (a database URL, a path) never leak."""
    deliberate = (exception.ServiceUnavailable, exception.NotImplementedHere)
    if error.code >= 500 and not isinstance(error, deliberate):
        return exception.SaphiraError()
    return error
