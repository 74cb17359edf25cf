"""Per-project limits on networks, subnets, ports, security groups and rules.

Limits are the [quotas] defaults unless a row overrides them; usage is
counted from the resources themselves, so nothing can drift.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.network.models import Network, Port, Subnet
from saphira.db.network.models_ext import Quota, SecurityGroup, SecurityGroupRule
from saphira.netsvc import errors
from saphira.netsvc.settings import QUOTA_RESOURCES, Settings

_COUNTED: dict[str, Any] = {
    "network": Network,
    "subnet": Subnet,
    "port": Port,
    "security_group": SecurityGroup,
    "security_group_rule": SecurityGroupRule,
}


def limits(session: Session, settings: Settings, project_id: str) -> dict[str, int]:
    found = {r: settings.default_quota(r) for r in QUOTA_RESOURCES}
    rows = session.scalars(sa.select(Quota).where(Quota.project_id == project_id))
    found.update({row.resource: row.limit for row in rows if row.resource in found})
    return found


def used(session: Session, project_id: str, resource: str) -> int:
    model = _COUNTED[resource]
    count = session.scalar(
        sa.select(sa.func.count()).select_from(model).where(model.project_id == project_id)
    )
    return int(count or 0)


def usage(session: Session, project_id: str) -> dict[str, int]:
    return {r: used(session, project_id, r) for r in QUOTA_RESOURCES}


def check(
    session: Session, settings: Settings, project_id: str, resource: str, adding: int = 1
) -> None:
    """OverQuota (409) if ``adding`` more would pass the project's limit; -1 is unlimited."""
    limit = limits(session, settings, project_id)[resource]
    if limit >= 0 and used(session, project_id, resource) + adding > limit:
        raise errors.OverQuota(overs=[resource])


def update(session: Session, project_id: str, values: dict[str, int]) -> None:
    for resource, limit in values.items():
        row = session.get(Quota, (project_id, resource))
        if row is None:
            session.add(Quota(project_id=project_id, resource=resource, limit=limit))
        else:
            row.limit = limit


def reset(session: Session, project_id: str) -> None:
    session.execute(sa.delete(Quota).where(Quota.project_id == project_id))


def overridden(session: Session) -> list[str]:
    """Projects with at least one limit of their own (GET /v2.0/quotas lists those)."""
    return sorted(set(session.scalars(sa.select(Quota.project_id))))
