"""What the identity API answers on success for its shows and lists (Keystone's shapes):
the members Keystone always returns are required, with their types."""

from __future__ import annotations

from typing import Any

from saphira.api.openapi.model import (
    FLAG,
    MAYBE_TEXT,
    TEXT,
    Schema,
    list_and_show,
    listing,
    record,
)

_SELF = record(["self"], {"self": TEXT})
_NAMED = {"id": TEXT, "name": TEXT, "links": _SELF}
DOMAIN = record(["id", "name", "enabled", "links"], {**_NAMED, "enabled": FLAG,
                "description": MAYBE_TEXT})  # fmt: skip
PROJECT = record(
    ["id", "name", "domain_id", "enabled", "is_domain", "parent_id", "links"],
    {**_NAMED, "domain_id": TEXT, "enabled": FLAG, "is_domain": FLAG,
     "parent_id": MAYBE_TEXT, "description": MAYBE_TEXT},
)  # fmt: skip
USER = record(["id", "name", "domain_id", "enabled", "links"],
              {**_NAMED, "domain_id": TEXT, "enabled": FLAG,
               "password_expires_at": MAYBE_TEXT})  # fmt: skip
ROLE = record(["id", "name", "links"], {**_NAMED, "domain_id": MAYBE_TEXT})


def _keystone(plural: str, singular: str, param: str, item: Schema) -> dict[tuple[str, str], Any]:
    """Keystone's lists carry their own links (self, previous, next) beside the items."""
    listed = listing(plural, item)
    listed["properties"]["links"] = _SELF
    return list_and_show(f"/v3/{plural}", param, (plural, singular), item, listed)


ANSWERS: dict[tuple[str, str], dict[str, Any]] = {
    **_keystone("domains", "domain", "domain_id", DOMAIN),
    **_keystone("projects", "project", "project_id", PROJECT),
    **_keystone("users", "user", "user_id", USER),
    **_keystone("roles", "role", "role_id", ROLE),
}
