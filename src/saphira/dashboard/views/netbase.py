"""What the Networks and Security groups views share: the project, and an API refusal
shown on the page the user came from."""

from __future__ import annotations

from collections.abc import Callable

from werkzeug.wrappers import Response

from saphira.dashboard.app import Ctx
from saphira.dashboard.errors import refusal

# A view shown again with a message: the form or confirmation that was refused.
Again = Callable[[Ctx, str, int], Response]


def project_of(ctx: Ctx) -> str:
    return ctx.live.login.project.id


def refused(ctx: Ctx, error: Exception, again: Again) -> Response:
    """The API's refusal (a 400, 403 or 409) in plain words on the page it came from;
    anything else (a 404, an expired token, a bug) goes to the one error page."""
    problem = refusal(error, page_says_404=False)
    return again(ctx, problem.message, problem.status)
