"""CSRF tokens: every form carries one, every POST is checked.

A logged-in session has its own random token (``Session.csrf``). The login
form has no session yet: its token is a random value set as a cookie and
repeated in the form (double submit, as Django does), so an anonymous visitor
never takes a place in the session table.
"""

from __future__ import annotations

import hmac
import secrets

FIELD = "csrf_token"
LOGIN_COOKIE = "saphira_login_csrf"


def new_token() -> str:
    return secrets.token_urlsafe(32)


def matches(expected: str | None, given: str | None) -> bool:
    """True only for a non-empty token equal to the expected one (constant time)."""
    if not expected or not given:
        return False
    return hmac.compare_digest(expected.encode(), given.encode())
