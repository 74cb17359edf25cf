"""What the identity API answers on success for its shows and lists (Keystone's shapes):
the members Keystone always returns are required, with their types."""

from __future__ import annotations

from typing import Any

from saphira.api.openapi.model import Schema, answer, listing, record, wrapped

_TEXT: Schema = {"type": "string"}
_MAYBE_TEXT: Schema = {"type": ["string", "null"]}
_FLAG: Schema = {"type": "boolean"}
_SELF = record(["self"], {"self": _TEXT})
_NAMED = {"id": _TEXT, "name": _TEXT, "links": _SELF}
DOMAIN = record(["id", "name", "enabled", "links"], {**_NAMED, "enabled": _FLAG,
                "description": _MAYBE_TEXT})  # fmt: skip
PROJECT = record(
    ["id", "name", "domain_id", "enabled", "is_domain", "parent_id", "links"],
    {**_NAMED, "domain_id": _TEXT, "enabled": _FLAG, "is_domain": _FLAG,
     "parent_id": _MAYBE_TEXT, "description": _MAYBE_TEXT},
)  # fmt: skip
USER = record(["id", "name", "domain_id", "enabled", "links"],
              {**_NAMED, "domain_id": _TEXT, "enabled": _FLAG,
               "password_expires_at": _MAYBE_TEXT})  # fmt: skip
ROLE = record(["id", "name", "links"], {**_NAMED, "domain_id": _MAYBE_TEXT})


def _both(plural: str, singular: str, param: str, item: Schema) -> dict[tuple[str, str], Any]:
    path = f"/v3/{plural}"
    listed = listing(plural, item)
    listed["properties"]["links"] = record(["self"], {"self": _TEXT})
    return {
        ("GET", path): {"200": answer(listed)},
        ("GET", f"{path}/<{param}>"): {"200": answer(wrapped(singular, item))},
    }


ANSWERS: dict[tuple[str, str], dict[str, Any]] = {
    **_both("domains", "domain", "domain_id", DOMAIN),
    **_both("projects", "project", "project_id", PROJECT),
    **_both("users", "user", "user_id", USER),
    **_both("roles", "role", "role_id", ROLE),
}
