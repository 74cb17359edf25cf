"""Keystone's user options (``"options"`` in a user's body), kept in its extra JSON.

Saphira honours ``ignore_lockout_failure_attempts`` (the lockout never locks
such a user: the service users ``saphira up`` makes carry it, so guessing
their passwords cannot cut the services off); the others are stored and
shown, as Keystone's names, and have no effect here yet.
"""

from __future__ import annotations

from typing import Any

from saphira.db.identity.models import User
from saphira.identity import store

KEY = "options"
IGNORE_LOCKOUT = "ignore_lockout_failure_attempts"
BOOLEAN = (
    "ignore_change_password_upon_first_use",
    "ignore_password_expiry",
    IGNORE_LOCKOUT,
    "ignore_user_inactivity",
    "lock_password",
    "multi_factor_auth_enabled",
)
RULES = "multi_factor_auth_rules"

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        **{name: {"type": ["boolean", "null"]} for name in BOOLEAN},
        RULES: {
            "type": ["array", "null"],
            "items": {"type": "array", "items": {"type": "string"}},
        },
    },
    "additionalProperties": False,
}


def of(user: User) -> dict[str, Any]:
    found = store.load_extra(user.extra).get(KEY)
    return dict(found) if isinstance(found, dict) else {}


def update(user: User, changes: dict[str, Any]) -> None:
    """Merge ``changes`` into the user's options; a null value removes one (Keystone)."""
    merged = {k: v for k, v in {**of(user), **changes}.items() if v is not None}
    extra = store.load_extra(user.extra)
    extra.pop(KEY, None)
    if merged:
        extra[KEY] = merged
    user.extra = store.dump_extra(extra)


def ignores_lockout(user: User) -> bool:
    return of(user).get(IGNORE_LOCKOUT) is True
