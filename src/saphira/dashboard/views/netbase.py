"""What the Networks and Security groups views share: the connection, the project,
and an API refusal shown on the page the user came from."""

from __future__ import annotations

from collections.abc import Callable

from openstack import connection
from werkzeug.wrappers import Response

from saphira.dashboard.app import Ctx
from saphira.dashboard.errors import explain

# A view shown again with a message: the form or confirmation that was refused.
Again = Callable[[Ctx, str, int], Response]


def conn_of(ctx: Ctx) -> connection.Connection:
    return ctx.app.connections.get(ctx.live.login)


def project_of(ctx: Ctx) -> str:
    return ctx.live.login.project.id


def refused(ctx: Ctx, error: Exception, again: Again) -> Response:
    """The API's refusal (a 400, 403 or 409) in plain words on the page it came from;
    anything else (a 404, an expired token, a bug) goes to the one error page."""
    problem = explain(error)
    if problem is None or problem.needs_login or problem.status == 404:
        raise error
    return again(ctx, problem.message, problem.status)
