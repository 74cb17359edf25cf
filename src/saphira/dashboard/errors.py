"""The one mapping from a failed API call to what the page says: plain words, a status.

Never a stack trace, never a URL. A 404 says only that the thing is not in this
project, whether it never existed or belongs to another project (the APIs
already answer both alike). A 401 means the session's token is no longer
valid: the user is sent to log in again.
"""

from __future__ import annotations

from dataclasses import dataclass

from keystoneauth1 import exceptions as ks
from openstack import exceptions as sdk


@dataclass(frozen=True)
class Problem:
    status: int
    message: str

    @property
    def needs_login(self) -> bool:
        return self.status == 401


_WORDS = {
    400: "The cloud refused the request",
    401: "Your session has expired; please log in again.",
    403: "You are not allowed to do that in this project.",
    404: "Not found in this project.",
    409: "That cannot be done now",
    413: "Over a limit of this project",
}
_UNREACHABLE = "The cloud did not answer; please try again in a moment."


class PageError(Exception):
    """Raised by a view for a problem it found itself (a form field, a missing server)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.problem = Problem(status, message)


def explain(error: Exception) -> Problem | None:
    """What to tell the user about ``error``; None when it is no API's answer (a bug)."""
    if isinstance(error, PageError):
        return error.problem
    if isinstance(error, sdk.HttpException):
        return _http(error.status_code or _sdk_status(error), error.details)
    if isinstance(error, ks.HttpError):
        return _http(error.http_status or 500, error.details or error.message)
    if isinstance(error, ks.ConnectionError | ks.EndpointNotFound | sdk.EndpointNotFound):
        return Problem(503, _UNREACHABLE)
    if isinstance(error, sdk.SDKException):
        return Problem(502, f"The cloud gave an answer the dashboard did not understand: {error}")
    return None


def refusal(error: Exception, *, page_says_404: bool = True) -> Problem:
    """The API's refusal of a view's call, for the page to say; an expired login and a bug
    (no API's answer) go on to the error page, and so does a 404 if ``page_says_404`` is
    False (a missing thing is no form's business)."""
    problem = explain(error)
    if problem is None or problem.needs_login or (problem.status == 404 and not page_says_404):
        raise error
    return problem


_SDK_STATUS: tuple[tuple[type[sdk.HttpException], int], ...] = (
    (sdk.NotFoundException, 404),  # also what openstacksdk raises itself for a missing id
    (sdk.ForbiddenException, 403),
    (sdk.ConflictException, 409),
    (sdk.BadRequestException, 400),
)


def _sdk_status(error: sdk.HttpException) -> int:
    return next((status for kind, status in _SDK_STATUS if isinstance(error, kind)), 500)


def _http(status: int, details: str | None) -> Problem:
    if status in (401, 404):  # a 404 says nothing of what another project may hold
        return Problem(status, _WORDS[status])
    said = _sentence(details)
    if status == 403 and said:  # a quota, a policy: the service's own words say which
        return Problem(status, f"Not allowed: {said}")
    if status >= 500:
        return Problem(502, f"The cloud failed to do it{': ' + said if said else '.'}")
    lead = _WORDS.get(status, "The cloud refused the request")
    return Problem(status, f"{lead}: {said}" if said else f"{lead}.")


def _sentence(details: str | None) -> str:
    text = " ".join((details or "").split())
    return text[:500]
