"""Placement's errors: the saphira.exception classes plus Placement's error codes.

Placement (1.23+) tells clients *which* conflict happened with a code string
(``placement.concurrent_update``, ``placement.inventory.inuse``...); clients
such as nova's report client retry on exactly those, so they are part of the API.
"""

from __future__ import annotations

from saphira import exception

UNDEFINED = "placement.undefined_code"


def error_code(error: exception.SaphiraError) -> str:
    return str(getattr(error, "placement_code", UNDEFINED))


class ConcurrentUpdate(exception.Conflict):
    """A provider or consumer generation did not match: re-read and retry."""

    placement_code = "placement.concurrent_update"


class ProviderGenerationConflict(ConcurrentUpdate):
    """Raised inside an allocation write; the write is retried server side first."""


class DuplicateName(exception.Conflict):
    placement_code = "placement.duplicate_name"


class InventoryInUse(exception.Conflict):
    placement_code = "placement.inventory.inuse"


class ProviderInUse(exception.Conflict):
    placement_code = "placement.resource_provider.inuse"


class CannotDeleteParent(exception.Conflict):
    placement_code = "placement.resource_provider.cannot_delete_parent"


class QueryBadValue(exception.BadRequest):
    placement_code = "placement.query.bad_value"


class QueryMissingValue(exception.BadRequest):
    placement_code = "placement.query.missing_value"


class ProviderNotFound(exception.BadRequest):
    """A provider named in a query (in_tree, allocations) does not exist."""

    placement_code = "placement.resource_provider.not_found"
