"""Server groups: who sees which, listing, and a create that claims
``server_groups`` quota under the project's lock."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from saphira.computesvc.caller import Caller
from saphira.db.api.models import InstanceGroup as GroupRow
from saphira.db.api.models import InstanceGroupPolicy
from saphira.db.api.quota import OverQuota, QuotaEngine, Scope
from saphira.exception import NotFound

__all__ = ["InstanceGroup", "create", "delete", "get", "list_groups", "visible"]


@dataclass(frozen=True)
class InstanceGroup:
    """A server group: its one policy (with 2.64's rules) and its members."""

    id: int
    uuid: str
    name: str | None
    project_id: str | None
    user_id: str | None
    policy: str | None
    rules: dict[str, Any]
    members: tuple[str, ...]

    @classmethod
    def of(cls, row: GroupRow) -> InstanceGroup:
        first = row.policies[0] if row.policies else None
        rules = json.loads(first.rules) if first is not None and first.rules else {}
        return cls(row.id, row.uuid, row.name, row.project_id, row.user_id,
                   first.policy if first is not None else None, rules,
                   tuple(member.instance_uuid for member in row.members))  # fmt: skip


def _row(caller: Caller, group_id: str) -> GroupRow | None:
    stmt = sa.select(GroupRow).filter_by(uuid=group_id)
    if not caller.context.is_admin:
        stmt = stmt.filter_by(project_id=caller.context.project_id)
    return caller.api.scalars(stmt).first()


def visible(caller: Caller, group_id: str) -> InstanceGroup | None:
    """The group if the caller may see it: its own project's, or any for an admin
    (Nova's query: another project's group does not exist for a member)."""
    row = _row(caller, group_id)
    return None if row is None else InstanceGroup.of(row)


def get(caller: Caller, group_id: str) -> InstanceGroup:
    group = visible(caller, group_id)
    if group is None:
        raise NotFound(f"Instance group {group_id} could not be found.")
    return group


def list_groups(caller: Caller, *, every_project: bool, offset: int,
                limit: int | None) -> list[InstanceGroup]:  # fmt: skip
    stmt = sa.select(GroupRow).order_by(GroupRow.id)
    if not every_project:
        stmt = stmt.where(GroupRow.project_id == caller.context.project_id)
    stmt = stmt.offset(offset)
    if limit is not None:
        stmt = stmt.limit(limit)
    return [InstanceGroup.of(row) for row in caller.api.scalars(stmt)]


def create(quota: QuotaEngine, caller: Caller, name: str, policy: str,
           rules: dict[str, int]) -> InstanceGroup:  # fmt: skip
    """Store the group (403 over quota)."""
    context = caller.context
    scope = Scope(context.project_id or "", context.user_id)
    group = GroupRow(uuid=str(uuid.uuid4()), name=name, user_id=context.user_id,
                          project_id=context.project_id)  # fmt: skip
    group.policies.append(
        InstanceGroupPolicy(policy=policy, rules=json.dumps(rules) if rules else None)
    )
    try:
        with quota.reserve(caller.directory.api_db, scope, {"server_groups": 1}) as session:
            session.add(group)
            session.flush()
            return InstanceGroup.of(group)
    except OverQuota:
        raise OverQuota("Quota exceeded, too many server groups.") from None


def delete(caller: Caller, group: InstanceGroup) -> None:
    row = caller.api.get(GroupRow, group.id)
    if row is not None:
        caller.api.delete(row)
