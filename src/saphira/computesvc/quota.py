"""Quota as the compute API asks it: limits, usage, checks and stored limits,
in the request's API-DB session, over ``saphira.db.api.quota``'s engine
(limits, usage, the per-project lock)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sqlalchemy as sa

from saphira.computesvc.caller import Caller
from saphira.db.api.models import ProjectUserQuota, Quota, QuotaClass
from saphira.db.api.quota import (
    COUNTED,
    LEGACY_NETWORK,
    RESOURCES,
    OverQuota,
    QuotaEngine,
    Scope,
    count_usage,
)

__all__ = [
    "COUNTED", "LEGACY_NETWORK", "RESOURCES", "OverQuota", "QuotaEngine", "Scope", "check",
    "check_metadata", "class_limits", "limits", "revert", "store_class_limit", "store_limit",
    "usage",
]  # fmt: skip


def check(quota: QuotaEngine, caller: Caller, scope: Scope, deltas: Mapping[str, int]) -> None:
    """OverQuota (403) if ``deltas`` on top of the scope's usage pass a limit."""
    quota.check(caller.api, scope, {key: value for key, value in deltas.items() if value > 0})


def check_metadata(quota: QuotaEngine, caller: Caller, project_id: str, items: int) -> None:
    """Nova's metadata_items: the number of keys a server's metadata may hold."""
    quota.check_absolute(caller.api, project_id, {"metadata_items": items})


def limits(quota: QuotaEngine, caller: Caller, project_id: str | None,
           user_id: str | None = None, *, legacy: bool = True) -> dict[str, int]:  # fmt: skip
    """A user's, a project's or (``project_id`` None) the default limits, with
    (``legacy``) the network ones older microversions show."""
    if project_id is None:
        found = quota.default_limits(caller.api)
    elif user_id:
        found = quota.user_limits(caller.api, project_id, user_id)
    else:
        found = quota.project_limits(caller.api, project_id)
    return {**LEGACY_NETWORK, **found} if legacy else found


def usage(caller: Caller, scope: Scope) -> dict[str, int]:
    return count_usage(caller.api, scope)


def store_limit(caller: Caller, project_id: str, user_id: str | None, name: str,
                limit: int) -> None:  # fmt: skip
    """Set a project's (or a project user's) limit of one resource."""
    if user_id:
        model: Any = ProjectUserQuota
        where = {"project_id": project_id, "user_id": user_id, "resource": name}
    else:
        model, where = Quota, {"project_id": project_id, "resource": name}
    row = caller.api.scalars(sa.select(model).filter_by(**where)).first()
    if row is None:
        caller.api.add(model(**where, hard_limit=limit))
    else:
        row.hard_limit = limit
    caller.api.flush()


def revert(caller: Caller, project_id: str, user_id: str | None) -> None:
    """Back to the defaults: the user's own limits, or the project's and all its users'."""
    user_rows = sa.delete(ProjectUserQuota).where(ProjectUserQuota.project_id == project_id)
    if user_id:
        caller.api.execute(user_rows.where(ProjectUserQuota.user_id == user_id))
    else:
        caller.api.execute(user_rows)
        caller.api.execute(sa.delete(Quota).where(Quota.project_id == project_id))


def class_limits(quota: QuotaEngine, caller: Caller, class_name: str) -> dict[str, int]:
    rows = caller.api.scalars(sa.select(QuotaClass).filter_by(class_name=class_name))
    found = {**LEGACY_NETWORK, **quota.defaults}
    found.update({row.resource: row.hard_limit for row in rows if row.hard_limit is not None})
    return found


def store_class_limit(caller: Caller, class_name: str, name: str, limit: int) -> None:
    row = caller.api.scalars(
        sa.select(QuotaClass).filter_by(class_name=class_name, resource=name)
    ).first()
    if row is None:
        caller.api.add(QuotaClass(class_name=class_name, resource=name, hard_limit=limit))
    else:
        row.hard_limit = limit
    caller.api.flush()
