"""Server groups: who sees which, listing, and a create that claims
``server_groups`` quota under the project's lock."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import TypeVar

import sqlalchemy as sa

from saphira.computesvc.caller import Caller
from saphira.db.api.models import InstanceGroup, InstanceGroupPolicy
from saphira.db.api.quota import OverQuota, QuotaEngine, Scope
from saphira.exception import NotFound

__all__ = ["InstanceGroup", "create", "delete", "get", "list_groups", "visible"]

T = TypeVar("T")


def visible(caller: Caller, group_id: str) -> InstanceGroup | None:
    """The group if the caller may see it: its own project's, or any for an admin
    (Nova's query: another project's group does not exist for a member)."""
    stmt = sa.select(InstanceGroup).filter_by(uuid=group_id)
    if not caller.context.is_admin:
        stmt = stmt.filter_by(project_id=caller.context.project_id)
    return caller.api.scalars(stmt).first()


def get(caller: Caller, group_id: str) -> InstanceGroup:
    group = visible(caller, group_id)
    if group is None:
        raise NotFound(f"Instance group {group_id} could not be found.")
    return group


def list_groups(caller: Caller, *, every_project: bool, offset: int,
                limit: int | None) -> list[InstanceGroup]:  # fmt: skip
    stmt = sa.select(InstanceGroup).order_by(InstanceGroup.id)
    if not every_project:
        stmt = stmt.where(InstanceGroup.project_id == caller.context.project_id)
    stmt = stmt.offset(offset)
    if limit is not None:
        stmt = stmt.limit(limit)
    return list(caller.api.scalars(stmt))


def create(quota: QuotaEngine, caller: Caller, name: str, policy: str, rules: dict[str, int],
           render: Callable[[InstanceGroup], T]) -> T:  # fmt: skip
    """Store the group and return ``render(group)`` while its rows are loaded; 403 over quota."""
    context = caller.context
    scope = Scope(context.project_id or "", context.user_id)
    group = InstanceGroup(uuid=str(uuid.uuid4()), name=name, user_id=context.user_id,
                          project_id=context.project_id)  # fmt: skip
    group.policies.append(
        InstanceGroupPolicy(policy=policy, rules=json.dumps(rules) if rules else None)
    )
    try:
        with quota.reserve(caller.directory.api_db, scope, {"server_groups": 1}) as session:
            session.add(group)
            session.flush()
            return render(group)
    except OverQuota:
        raise OverQuota("Quota exceeded, too many server groups.") from None


def delete(caller: Caller, group: InstanceGroup) -> None:
    caller.api.delete(group)
