"""Status codes of another service's answer as ``saphira.exception`` classes.

One table for every client: a refusal keeps its meaning (a 404 stays a
``NotFound``, a 409 a ``Conflict``) when it becomes an error of ours, so an
API that lets it through answers with the same status. A client with a
sharper mapping (placement's ``concurrent_update``, the network service's
own classes) builds its error first and falls back on this one.
"""

from __future__ import annotations

from saphira import exception

BY_STATUS: dict[int, type[exception.SaphiraError]] = {
    400: exception.BadRequest,
    401: exception.Unauthorized,
    403: exception.Forbidden,
    404: exception.NotFound,
    409: exception.Conflict,
    413: exception.PayloadTooLarge,
    415: exception.UnsupportedMediaType,
    429: exception.TooManyRequests,
    503: exception.ServiceUnavailable,
}


def error_for(status: int, message: str) -> exception.SaphiraError:
    """The error for ``status`` (a plain ``SaphiraError``, a 500, when unlisted)."""
    return BY_STATUS.get(status, exception.SaphiraError)(message)
