"""What a caller may see, decided in SQL: 404 for everything else, never 403.

Admins see everything. Others see their project's resources; networks that
are shared or external and their subnets; ports on networks they own; the
rules of their own groups.
"""

from __future__ import annotations

from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.network.models import Network, Port, Subnet
from saphira.db.network.models_ext import SecurityGroup, SecurityGroupRule
from saphira.netsvc import errors
from saphira.netsvc.caller import Caller

T = TypeVar("T")


def networks(caller: Caller) -> sa.Select[Network]:
    query = sa.select(Network)
    if caller.is_admin:
        return query
    mine = Network.project_id == caller.project_id
    return query.where(sa.or_(mine, Network.shared.is_(True), Network.external.is_(True)))


def subnets(caller: Caller) -> sa.Select[Subnet]:
    query = sa.select(Subnet)
    if caller.is_admin:
        return query
    seen = networks(caller).with_only_columns(Network.id).scalar_subquery()
    return query.where(sa.or_(Subnet.project_id == caller.project_id, Subnet.network_id.in_(seen)))


def ports(caller: Caller) -> sa.Select[Port]:
    query = sa.select(Port)
    if caller.is_admin:
        return query
    owned = sa.select(Network.id).where(Network.project_id == caller.project_id)
    return query.where(
        sa.or_(Port.project_id == caller.project_id, Port.network_id.in_(owned.scalar_subquery()))
    )


def security_groups(caller: Caller) -> sa.Select[SecurityGroup]:
    query = sa.select(SecurityGroup)
    return query if caller.is_admin else query.where(SecurityGroup.project_id == caller.project_id)


def rules(caller: Caller) -> sa.Select[SecurityGroupRule]:
    query = sa.select(SecurityGroupRule)
    if caller.is_admin:
        return query
    groups = sa.select(SecurityGroup.id).where(SecurityGroup.project_id == caller.project_id)
    return query.where(
        sa.or_(
            SecurityGroupRule.project_id == caller.project_id,
            SecurityGroupRule.security_group_id.in_(groups.scalar_subquery()),
        )
    )


def _one(session: Session, query: sa.Select[T], column: Any, key: str) -> T | None:
    return session.scalars(query.where(column == key)).first()


def network(session: Session, caller: Caller, net_id: str) -> Network:
    found = _one(session, networks(caller), Network.id, net_id)
    if found is None:
        raise errors.NetworkNotFound(net_id=net_id)
    return found


def subnet(session: Session, caller: Caller, subnet_id: str) -> Subnet:
    found = _one(session, subnets(caller), Subnet.id, subnet_id)
    if found is None:
        raise errors.SubnetNotFound(subnet_id=subnet_id)
    return found


def port(session: Session, caller: Caller, port_id: str) -> Port:
    found = _one(session, ports(caller), Port.id, port_id)
    if found is None:
        raise errors.PortNotFound(port_id=port_id)
    return found


def security_group(session: Session, caller: Caller, group_id: str) -> SecurityGroup:
    found = _one(session, security_groups(caller), SecurityGroup.id, group_id)
    if found is None:
        raise errors.SecurityGroupNotFound(id=group_id)
    return found


def rule(session: Session, caller: Caller, rule_id: str) -> SecurityGroupRule:
    found = _one(session, rules(caller), SecurityGroupRule.id, rule_id)
    if found is None:
        raise errors.SecurityGroupRuleNotFound(id=rule_id)
    return found


def network_of(session: Session, net_id: str) -> Network:
    """The network itself, whoever sees it (for a thing already known to be on it)."""
    found = session.get(Network, net_id)
    if found is None:
        raise errors.NetworkNotFound(net_id=net_id)
    return found
