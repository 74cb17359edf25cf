"""What the placement API answers on success (Placement's shapes). One description holds
from 1.0 to the newest microversion (the fuzzer sends both ends): what every microversion
returns is required, what later ones add may come; an answer some microversions give
without a body (a provider's POST before 1.20: 201) is left to ``default``."""

from __future__ import annotations

from typing import Any

from saphira.api.openapi.model import (
    COUNT,
    LINKS,
    MAYBE_TEXT,
    TEXT,
    TEXTS,
    Schema,
    answer,
    created,
    keyed,
    listing,
    ok,
    record,
)

_AMOUNTS = keyed(COUNT)  # class -> amount
_GENERATION = "resource_provider_generation"


def _of_provider(key: str, schema: Schema) -> Schema:
    """``{key: ..., "resource_provider_generation": n}``."""
    return record([key, _GENERATION], {key: schema, _GENERATION: COUNT})


# The parent and the root come from 1.14.
PROVIDER = record(
    ["uuid", "name", "generation", "links"],
    {"uuid": TEXT, "name": TEXT, "generation": COUNT, "links": LINKS,
     "parent_provider_uuid": MAYBE_TEXT, "root_provider_uuid": TEXT},
)  # fmt: skip
_INVENTORY_FIELDS: Schema = {
    "total": {"type": "integer", "minimum": 1}, "reserved": COUNT, "min_unit": COUNT,
    "max_unit": COUNT, "step_size": COUNT, "allocation_ratio": {"type": "number"},
}  # fmt: skip
_INVENTORY = record(list(_INVENTORY_FIELDS), _INVENTORY_FIELDS)
INVENTORIES = _of_provider("inventories", keyed(_INVENTORY))
INVENTORY = record([*_INVENTORY_FIELDS, _GENERATION], {**_INVENTORY_FIELDS, _GENERATION: COUNT})
_CLASS = record(["name", "links"], {"name": TEXT, "links": LINKS})
_VERSION = record(
    ["id", "min_version", "max_version", "status", "links"],
    {"id": TEXT, "min_version": TEXT, "max_version": TEXT, "status": TEXT, "links": LINKS},
)
# 1.12 to 1.27: no project and user when no allocation; 1.28: the consumer's generation.
_ALLOCATIONS = record(
    ["allocations"],
    {"allocations": keyed(record(["generation", "resources"],
                                   {"generation": COUNT, "resources": _AMOUNTS})),
     "project_id": TEXT, "user_id": TEXT, "consumer_generation": COUNT},
)  # fmt: skip
_USED_BY = _of_provider("allocations", keyed(record(["resources"], {"resources": _AMOUNTS})))
# A request is a list of {resource_provider: {uuid}, resources} before 1.12, then an object
# by provider uuid (with the groups' mappings from 1.34); traits come from 1.17, the tree
# from 1.29.
_REQUEST = record(["allocations"], {"allocations": {"type": ["array", "object"]},
                                    "mappings": keyed(TEXTS)})  # fmt: skip
_ROOM = record(["capacity", "used"], {"capacity": COUNT, "used": COUNT})
_SUMMARY = record(
    ["resources"],
    {"resources": keyed(_ROOM), "traits": TEXTS, "parent_provider_uuid": MAYBE_TEXT,
     "root_provider_uuid": TEXT},
)  # fmt: skip
_CANDIDATES = record(
    ["allocation_requests", "provider_summaries"],
    {"allocation_requests": {"type": "array", "items": _REQUEST},
     "provider_summaries": keyed(_SUMMARY)},
)  # fmt: skip
# The provider's generation beside its aggregates comes from 1.19.
_AGGREGATES = record(["aggregates"], {"aggregates": TEXTS, _GENERATION: COUNT})
_TRAITS = _of_provider("traits", TEXTS)

_RP = "/resource_providers/<uuid>"
_CREATED = "Created (1.20 on; before, 201 without a body)"
ANSWERS: dict[tuple[str, str], dict[str, Any]] = {
    ("GET", "/"): ok(listing("versions", _VERSION)),
    ("GET", "/resource_providers"): ok(listing("resource_providers", PROVIDER)),
    ("POST", "/resource_providers"): {"200": answer(PROVIDER, _CREATED)},
    ("GET", _RP): ok(PROVIDER),
    ("PUT", _RP): ok(PROVIDER),
    ("GET", f"{_RP}/inventories"): ok(INVENTORIES),
    ("PUT", f"{_RP}/inventories"): ok(INVENTORIES),
    ("POST", f"{_RP}/inventories"): created(INVENTORY),
    ("GET", f"{_RP}/inventories/<rc>"): ok(INVENTORY),
    ("PUT", f"{_RP}/inventories/<rc>"): ok(INVENTORY),
    ("GET", "/resource_classes"): ok(listing("resource_classes", _CLASS)),
    ("GET", "/resource_classes/<name>"): ok(_CLASS),
    ("GET", "/traits"): ok(listing("traits", TEXT)),
    ("GET", f"{_RP}/traits"): ok(_TRAITS),
    ("PUT", f"{_RP}/traits"): ok(_TRAITS),
    ("GET", f"{_RP}/aggregates"): ok(_AGGREGATES),
    ("PUT", f"{_RP}/aggregates"): ok(_AGGREGATES),
    ("GET", "/allocations/<consumer>"): ok(_ALLOCATIONS),
    ("GET", f"{_RP}/allocations"): ok(_USED_BY),
    ("GET", f"{_RP}/usages"): ok(_of_provider("usages", _AMOUNTS)),
    ("GET", "/usages"): ok(record(["usages"], {"usages": _AMOUNTS})),
    ("GET", "/allocation_candidates"): ok(_CANDIDATES),
}
