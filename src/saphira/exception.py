"""One small exception hierarchy for the whole project.

Each class carries the HTTP status it becomes at an API edge, so the mapping
to a response happens in exactly one place per API (its fault formatter), and
code below the API never imports anything HTTP-shaped.
"""

from __future__ import annotations

from typing import Any


class SaphiraError(Exception):
    """Base of every error we raise on purpose."""

    code: int = 500
    title: str = "Internal Server Error"
    msg_fmt: str = "An unexpected error occurred."

    def __init__(self, message: str | None = None, **kwargs: Any) -> None:
        self.kwargs = kwargs
        if message is None:
            try:
                message = self.msg_fmt % kwargs if kwargs else self.msg_fmt
            except (KeyError, TypeError):
                message = self.msg_fmt
        self.message = message
        super().__init__(message)


class BadRequest(SaphiraError):
    code = 400
    title = "Bad Request"
    msg_fmt = "The request is invalid."


class ValidationError(BadRequest):
    msg_fmt = "Invalid input: %(detail)s"


class Unauthorized(SaphiraError):
    code = 401
    title = "Unauthorized"
    msg_fmt = "The request you have made requires authentication."


class AccountLocked(Unauthorized):
    """Too many failed password logins in a row (Keystone's name and message)."""

    msg_fmt = "The account is locked for user: %(user_id)s."


class Forbidden(SaphiraError):
    code = 403
    title = "Forbidden"
    msg_fmt = "You are not authorized to perform the requested action."


class NotFound(SaphiraError):
    code = 404
    title = "Not Found"
    msg_fmt = "Could not find the requested resource."


class MethodNotAllowed(SaphiraError):
    code = 405
    title = "Method Not Allowed"
    msg_fmt = "The method is not allowed for the requested URL."


class Conflict(SaphiraError):
    code = 409
    title = "Conflict"
    msg_fmt = "The request conflicts with the current state of the resource."


class PayloadTooLarge(SaphiraError):
    code = 413
    title = "Request Entity Too Large"
    msg_fmt = "Request is too large."


class UnsupportedMediaType(SaphiraError):
    code = 415
    title = "Unsupported Media Type"
    msg_fmt = "The request media type is not supported."


class TooManyRequests(SaphiraError):
    """A client is throttled; ``retry_after`` (seconds) says when to try again."""

    code = 429
    title = "Too Many Requests"
    msg_fmt = "Too many requests; retry after %(retry_after)s seconds."


class ServiceUnavailable(SaphiraError):
    """A service this one depends on (e.g. identity, to validate a token) is unreachable."""

    code = 503
    title = "Service Unavailable"
    msg_fmt = "The service is temporarily unavailable."


class NotImplementedHere(SaphiraError):
    """A deliberate 501: the request is valid, this deployment cannot answer it (Nova's
    answer when a virt driver lacks a function)."""

    code = 501
    title = "Not Implemented"
    msg_fmt = "Not implemented."


class ConfigError(SaphiraError):
    """A configuration value is wrong; raised before any service starts."""

    msg_fmt = "Invalid configuration: %(detail)s"


class DatabaseError(SaphiraError):
    """A database could not be reached or used; the message names the cause."""

    msg_fmt = "Database error: %(detail)s"


class ServiceError(SaphiraError):
    """A service of the all-in-one cloud could not start or stopped on its own."""

    msg_fmt = "Service error: %(detail)s"


class InstanceNotFound(NotFound):
    msg_fmt = "Instance %(instance_id)s could not be found."


class InstanceInvalidState(Conflict):
    """An action or a state change met an instance in a state that forbids it.

    The message names the state the instance is in NOW (Nova's wording), so a
    409 tells the caller what it raced with.
    """

    msg_fmt = (
        "Instance %(instance_uuid)s in %(attr)s %(state)s. "
        "Cannot %(method)s while the instance is in this state."
    )


class InstanceIsLocked(Conflict):
    msg_fmt = "Instance %(instance_uuid)s is locked"


class QuotaExceeded(Forbidden):
    """Creating or growing servers would pass a project's quota (Nova answers 403)."""

    msg_fmt = (
        "Quota exceeded for %(overs)s: Requested %(req)s, but already used "
        "%(used)s of %(allowed)s %(overs)s"
    )


class MessagingTimeout(SaphiraError):
    """An RPC call got no reply in time: the service behind the topic is down or stuck."""

    code = 504
    title = "Gateway Timeout"
    msg_fmt = "No reply to %(method)s on topic %(topic)s within %(timeout)s seconds."


class RPCPinnedToOldVersion(SaphiraError):
    """A call needs a newer RPC interface version than the configured cap allows."""

    msg_fmt = "%(method)s needs RPC version %(version)s; %(topic)s is pinned to %(cap)s."


class NoValidHost(SaphiraError):
    """The scheduler found no host for a request; ``reason`` names, per host, who refused.

    Nova's wording, plus the detail Nova keeps to itself. It crosses the bus as
    itself (saphira.exception is an allowed remote module): the receiver gets
    ``NoValidHost(message, reason=...)`` back with the same ``.message``.
    """

    msg_fmt = "No valid host was found. %(reason)s"

    @property
    def public_message(self) -> str:
        """What a project's members read (Nova's words): ``summary``, the reason
        without any host's name, instead of the per-host ``reason`` admins see."""
        summary = self.kwargs.get("summary") or "There are not enough hosts available."
        return f"No valid host was found. {summary}"


class ImageNotFound(NotFound):
    """The image service has no image by that id for the caller (Nova's name)."""

    msg_fmt = "Image %(image_id)s could not be found."


class ImageUnacceptable(BadRequest):
    """The image exists but cannot be used as asked: no data yet, a format the
    hypervisor cannot boot, bytes that do not match their checksum (Nova's name)."""

    msg_fmt = "Image %(image_id)s is unacceptable: %(reason)s"


class ConsoleTypeUnavailable(BadRequest):
    """The guest's driver or the API has no console of this type (Nova's 400)."""

    msg_fmt = "Unavailable console type %(console_type)s."


class ConsoleNotAvailable(Conflict):
    """The guest has no console of that type running now (not started, no graphics)."""

    msg_fmt = "Guest does not have a console available."


class ConsoleTokenInvalid(NotFound):
    """No live console token has this value (unknown, expired or its server gone)."""

    msg_fmt = "The token '%(token)s' is invalid or has expired"


class JoinRefused(SaphiraError):
    """saphira-openstack-setup-compute stops: the reason, before anything is written."""

    code = 409
    title = "Conflict"
    msg_fmt = "The join cannot go on: %(reason)s"


class ComputeTokenInvalid(Unauthorized):
    """A join token that is unknown, forged, expired or already redeemed."""

    msg_fmt = "The join token is invalid, expired or already used."
