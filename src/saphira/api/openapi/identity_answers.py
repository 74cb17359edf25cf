"""What the identity API answers on success (Keystone's shapes): the members Keystone
always returns (and Saphira too) are required, with their types."""

from __future__ import annotations

from typing import Any

from saphira.api.openapi.model import (
    FLAG,
    LINKS,
    MAYBE_TEXT,
    MEDIA_TYPES,
    TEXT,
    TEXTS,
    Schema,
    answer,
    created,
    list_and_show,
    listing,
    ok,
    record,
    wrapped,
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

SERVICE = record(["id", "type", "enabled", "links"], {"id": TEXT, "type": TEXT, "enabled": FLAG,
                 "links": _SELF, "name": TEXT, "description": TEXT})  # fmt: skip
ENDPOINT = record(
    ["id", "interface", "region", "region_id", "service_id", "url", "enabled", "links"],
    {"id": TEXT, "interface": {"enum": ["public", "internal", "admin"]}, "region": MAYBE_TEXT,
     "region_id": MAYBE_TEXT, "service_id": TEXT, "url": TEXT, "enabled": FLAG, "links": _SELF},
)  # fmt: skip
REGION = record(["id", "description", "parent_region_id", "links"],
                {"id": TEXT, "description": TEXT, "parent_region_id": MAYBE_TEXT,
                 "links": _SELF})  # fmt: skip

_REF = record(["id", "name"], {"id": TEXT, "name": TEXT})
_SYSTEM = record(["all"], {"all": FLAG})
_SCOPED = record(["id", "name", "domain"], {"id": TEXT, "name": TEXT, "domain": _REF})
_CATALOG_ENDPOINT = record(
    ["id", "interface", "region", "region_id", "url"],
    {"id": TEXT, "interface": TEXT, "region": MAYBE_TEXT, "region_id": MAYBE_TEXT, "url": TEXT},
)
_CATALOG_ENTRY = record(
    ["endpoints", "id", "type", "name"],
    {"endpoints": {"type": "array", "items": _CATALOG_ENDPOINT}, "id": TEXT, "type": TEXT,
     "name": TEXT},
)  # fmt: skip
_CATALOG: Schema = {"type": "array", "items": _CATALOG_ENTRY}
# One of project (with is_domain), domain or system, and the roles, when scoped; the
# catalog when scoped and not refused with ?nocatalog.
TOKEN = wrapped("token", record(
    ["methods", "user", "audit_ids", "expires_at", "issued_at"],
    {"methods": TEXTS, "audit_ids": TEXTS, "expires_at": TEXT, "issued_at": TEXT,
     "user": record(["id", "name", "domain"], {**_SCOPED["properties"],
                                               "password_expires_at": MAYBE_TEXT}),
     "project": _SCOPED, "is_domain": FLAG, "domain": _REF,
     "system": _SYSTEM, "roles": {"type": "array", "items": _REF},
     "catalog": _CATALOG},
))  # fmt: skip
# An assignment names a user or (in Keystone) a group, and its scope: a project, a
# domain or the system; names with ?include_names.
_ID = record(["id"], {"id": TEXT, "name": TEXT, "domain": _REF})
_ASSIGNMENT = record(
    ["role", "scope", "links"],
    {"role": _ID, "user": _ID,
     "scope": record([], {"project": _ID, "domain": _ID, "system": _SYSTEM}),
     "links": record(["assignment"], {"assignment": TEXT, "prior_role": TEXT})},
)  # fmt: skip
_VERSION = record(
    ["id", "status", "updated", "links", "media-types"],
    {"id": TEXT, "status": TEXT, "updated": TEXT, "links": LINKS,
     "media-types": MEDIA_TYPES},
)  # fmt: skip
_VERSIONS = wrapped("versions", listing("values", _VERSION))


def _listed(plural: str, item: Schema) -> Schema:
    """Keystone's lists carry their own links (self, previous, next) beside the items."""
    listed = listing(plural, item)
    listed["properties"]["links"] = _SELF
    listed["required"].append("links")
    return listed


def _keystone(plural: str, singular: str, param: str, item: Schema) -> dict[tuple[str, str], Any]:
    """The list, show, create (201) and update (PATCH) of ``/v3/{plural}``."""
    path, one = f"/v3/{plural}", wrapped(singular, item)
    return {
        **list_and_show(path, param, (plural, singular), item, _listed(plural, item)),
        ("POST", path): created(one),
        ("PATCH", f"{path}/<{param}>"): ok(one),
    }


_GRANTS = ("/v3/<any(projects, domains):kind>/<target_id>", "/v3/<any(system):kind>")
_TOKENS = "/v3/auth/tokens"
ANSWERS: dict[tuple[str, str], dict[str, Any]] = {
    ("GET", "/"): {"300": answer(_VERSIONS, "The versions (Multiple Choices)")},
    ("GET", "/v3"): ok(wrapped("version", _VERSION)),
    ("POST", _TOKENS): created(TOKEN, "Issued"),
    ("GET", _TOKENS): ok(TOKEN),
    ("GET", "/v3/auth/catalog"): ok(_listed("catalog", _CATALOG_ENTRY)),
    ("GET", "/v3/auth/projects"): ok(_listed("projects", PROJECT)),
    ("GET", "/v3/auth/domains"): ok(_listed("domains", DOMAIN)),
    ("GET", "/v3/auth/system"): ok(_listed("system", _SYSTEM)),
    **_keystone("domains", "domain", "domain_id", DOMAIN),
    **_keystone("projects", "project", "project_id", PROJECT),
    **_keystone("users", "user", "user_id", USER),
    ("GET", "/v3/users/<user_id>/projects"): ok(_listed("projects", PROJECT)),
    **_keystone("roles", "role", "role_id", ROLE),
    **{("GET", f"{prefix}/users/<user_id>/roles"): ok(_listed("roles", ROLE))
       for prefix in _GRANTS},
    ("GET", "/v3/role_assignments"): ok(_listed("role_assignments", _ASSIGNMENT)),
    **_keystone("services", "service", "ident", SERVICE),
    **_keystone("endpoints", "endpoint", "ident", ENDPOINT),
    **_keystone("regions", "region", "ident", REGION),
    ("PUT", "/v3/regions/<region_id>"): created(wrapped("region", REGION)),
}  # fmt: skip
