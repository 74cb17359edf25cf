"""What every admin page shares: the gate, and reading numbers from a form.

The gate is the dashboard's own (Horizon shows its Admin panels only to a user
with the admin role in the current project): a member is refused with a plain
403 page before any API call, whatever the API's policy would say. The APIs
still enforce theirs on every call the admin's token makes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import wraps
from typing import Concatenate, ParamSpec, TypeVar

from werkzeug.wrappers import Response

from saphira.dashboard.app import Ctx
from saphira.dashboard.errors import PageError, Problem, refusal

P = ParamSpec("P")
T = TypeVar("T")
NOT_ADMIN = "This page is for administrators: you have no admin role in this project."


def admin(view: Callable[Concatenate[Ctx, P], Response]) -> Callable[Concatenate[Ctx, P], Response]:
    """The view, refused (403) to a session without the admin role in its project."""

    @wraps(view)
    def gated(ctx: Ctx, /, *args: P.args, **kwargs: P.kwargs) -> Response:
        if not ctx.live.login.is_admin:
            raise PageError(403, NOT_ADMIN)
        return view(ctx, *args, **kwargs)

    return gated


class FormError(Exception):
    """A form field the page asks again for, in plain words."""


def number(form: Mapping[str, str], field: str, label: str, least: int = 0) -> int:
    """A whole number of at least ``least`` from the form, or a FormError saying so."""
    raw = form.get(field, "").strip()
    try:
        value = int(raw)
    except ValueError:
        raise FormError(f"{label} must be a whole number.") from None
    if value < least:
        raise FormError(f"{label} must be at least {least}.")
    return value


def required(form: Mapping[str, str], field: str, label: str) -> str:
    value = form.get(field, "").strip()
    if not value:
        raise FormError(f"Enter {label}.")
    return value


def attempt(call: Callable[[], T]) -> T | Problem:
    """The API call's result, or its refusal in plain words for the form to say.

    An expired session and a bug are not a form's business: they propagate."""
    try:
        return call()
    except Exception as error:
        problem = refusal(error)
        return problem
