"""Request id, user and project on every log line of a request.

A ContextVar holds them for the thread serving the request (cheroot runs one
request per worker thread at a time); a logging Filter copies them onto each
record, so any logger, ours or a library's, can print them with LOG_FORMAT.
"""

from __future__ import annotations

import contextvars
import logging
from dataclasses import dataclass, replace

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s %(user)s %(project)s] %(message)s"


@dataclass(frozen=True)
class LogIdentity:
    request_id: str = "-"
    user: str = "-"
    project: str = "-"


_NOBODY = LogIdentity()
_current: contextvars.ContextVar[LogIdentity | None] = contextvars.ContextVar(
    "saphira_log_identity", default=None
)


def bind(request_id: str) -> contextvars.Token[LogIdentity | None]:
    return _current.set(LogIdentity(request_id=request_id))


def reset(token: contextvars.Token[LogIdentity | None]) -> None:
    _current.reset(token)


def set_identity(user: str | None, project: str | None) -> None:
    """Called once the caller is known (after token validation).

    Only inside a request ``bind`` opened (whose ``reset`` undoes it): outside one
    the identity would outlive the request in its thread and name the next
    lines of whatever that thread logs.
    """
    bound = _current.get()
    if bound is not None:
        _current.set(replace(bound, user=user or "-", project=project or "-"))


def current() -> LogIdentity:
    return _current.get() or _NOBODY


class RequestLogFilter(logging.Filter):
    """Add request_id, user and project attributes to every record; never drops one."""

    def filter(self, record: logging.LogRecord) -> bool:
        identity = current()
        record.request_id = identity.request_id
        record.user = identity.user
        record.project = identity.project
        return True
