"""X-OpenStack-Request-ID on every response, and in the log context."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from saphira.api.wsgi import logcontext
from saphira.context import new_request_id

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

LOG = logging.getLogger(__name__)
HEADER = "X-OpenStack-Request-ID"
ENV_REQUEST_ID = "saphira.request_id"
ENV_GLOBAL_REQUEST_ID = "saphira.global_request_id"
_VALID = re.compile(r"^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


class RequestIdMiddleware:
    """Outermost wrapper of every API: the id exists before anything can log or fail.

    A well-formed incoming X-OpenStack-Request-ID is kept as the global request
    id (as oslo.middleware does), never as ours. One access line per request is
    logged while the id (and the user and project, once known) are bound.
    """

    def __init__(self, app: WSGIApplication, also: tuple[str, ...] = ()) -> None:
        """``also``: more headers carrying the same id (Nova's X-Compute-Request-Id)."""
        self.app = app
        self.headers = (HEADER, *also)

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        request_id = new_request_id()
        environ[ENV_REQUEST_ID] = request_id
        incoming = environ.get("HTTP_X_OPENSTACK_REQUEST_ID", "")
        if _VALID.match(incoming):
            environ[ENV_GLOBAL_REQUEST_ID] = incoming

        seen: list[str] = []

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            seen.append(status)
            ours = {name.lower() for name in self.headers}
            headers = [(k, v) for k, v in headers if k.lower() not in ours]
            headers += [(name, request_id) for name in self.headers]
            return start_response(status, headers, exc_info)

        token = logcontext.bind(request_id)
        try:
            result = self.app(environ, start)
            LOG.info(
                "%s %s status: %s",
                environ.get("REQUEST_METHOD"),
                environ.get("PATH_INFO"),
                seen[-1].split(" ", 1)[0] if seen else "-",
            )
            return result
        finally:
            logcontext.reset(token)
