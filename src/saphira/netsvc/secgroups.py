"""Security groups: each project's default group, made on first use, and the others.

Every new group allows all egress (IPv4 and IPv6); the default group also
admits ingress from its own members. Two first uses at once make one default
group: the mapping row is keyed by project, and the loser reads the winner's.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.network.models import PortSecurityGroup
from saphira.db.network.models_ext import DefaultSecurityGroup, SecurityGroup, SecurityGroupRule
from saphira.db.transactions import inserted
from saphira.netsvc import access, errors, quotas, sgrules
from saphira.netsvc.caller import Caller, target
from saphira.netsvc.settings import Settings
from saphira.netsvc.stamps import bumped, created, new_id

DEFAULT = "default"
ETHERTYPES = ("IPv4", "IPv6")
FIRST_USE_ATTEMPTS = 3


def _egress_rules(group: SecurityGroup) -> list[SecurityGroupRule]:
    return [sgrules.build(group, {"direction": "egress", "ethertype": e}) for e in ETHERTYPES]


def _new(project_id: str, name: str, description: str, stateful: bool = True) -> SecurityGroup:
    group = SecurityGroup(id=new_id(), project_id=project_id, name=name, stateful=stateful)
    created(group, description)
    return group


def default_of(session: Session, project_id: str) -> str | None:
    return session.scalar(
        sa.select(DefaultSecurityGroup.security_group_id).where(
            DefaultSecurityGroup.project_id == project_id
        )
    )


def ensure_default(session: Session, project_id: str) -> str:
    """The id of the project's default group, made now if it has none."""
    for _ in range(FIRST_USE_ATTEMPTS):
        found = default_of(session, project_id)
        if found is not None:
            return found
        group = _new(project_id, DEFAULT, "Default security group")
        ingress = [
            sgrules.build(
                group, {"direction": "ingress", "ethertype": e, "remote_group_id": group.id}
            )
            for e in ETHERTYPES
        ]
        mapping = DefaultSecurityGroup(project_id=project_id, security_group_id=group.id)
        if inserted(session, group, *_egress_rules(group), *ingress, mapping):
            return group.id
    # Another transaction kept making and undoing it: let the client try again.
    raise errors.SecurityGroupConflict(reason="creating the default security group")


def create(
    session: Session, caller: Caller, settings: Settings, attrs: dict[str, Any]
) -> SecurityGroup:
    project = caller.owner_for(attrs.get("project_id"))
    caller.authorize("create_security_group", target(project))
    name = attrs.get("name", "")
    if name.lower() == DEFAULT:
        raise errors.SecurityGroupDefaultAlreadyExists()
    ensure_default(session, project)
    quotas.check(session, settings, project, "security_group")
    group = _new(project, name, attrs.get("description", ""), attrs.get("stateful", True))
    session.add(group)
    session.flush()
    session.add_all(_egress_rules(group))
    session.flush()
    session.expire(group, ["rules"])
    return group


def update(session: Session, caller: Caller, group_id: str, attrs: dict[str, Any]) -> SecurityGroup:
    group = access.security_group(session, caller, group_id)
    caller.authorize("update_security_group", target(group.project_id))
    if "name" in attrs and attrs["name"] != group.name:
        if group.name == DEFAULT:
            raise errors.SecurityGroupCannotUpdateDefault()
        if str(attrs["name"]).lower() == DEFAULT:
            raise errors.SecurityGroupDefaultAlreadyExists()
    for key in ("name", "description", "stateful"):
        if key in attrs:
            setattr(group, key, attrs[key])
    bumped(group)
    return group


def delete(session: Session, caller: Caller, group_id: str) -> None:
    group = access.security_group(session, caller, group_id)
    caller.authorize("delete_security_group", target(group.project_id))
    if default_of(session, group.project_id) == group.id and not caller.is_admin:
        raise errors.SecurityGroupCannotRemoveDefault()
    bound = session.scalar(
        sa.select(sa.func.count()).where(PortSecurityGroup.security_group_id == group.id)
    )
    if bound:
        raise errors.SecurityGroupInUse(id=group.id)
    session.delete(group)
