"""What a network API write concerns: the rows it touched, turned into hosts and physnets.

A write request runs inside ``watching(db)``: an ORM flush listener notes each
network row the request added, changed or deleted (a port's old host as well
as its new one). After the commit, ``pending()`` reads what those rows affect
and returns the ``AgentChange`` the agents are nudged with: the hosts whose
bound ports change on the wire (the port itself, every port of a network
whose attributes changed, every port of a group whose rules changed, and every
port of a group with a rule whose remote group gained, lost or renumbered a
member), and the physical networks of every network whose DHCP data changed.
A row of a kind not classified here makes the change concern everyone, so a
table added later cannot make agents miss a change (only wake them for
nothing). Over-naming costs a resync; under-naming would cost a poll interval.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.orm import InstrumentedAttribute, Session

from saphira.db.network import models as m
from saphira.db.network import models_ext as ext
from saphira.db.transactions import Database
from saphira.objects.network import AgentChange

LOG = logging.getLogger(__name__)
#: Rows no agent wires from: never a reason to nudge.
UNWIRED = (ext.Agent, ext.Quota, ext.DefaultSecurityGroup)
#: Columns no agent reads: a row whose change is only these concerns nobody.
NAMES = frozenset({"name", "description", "created_at", "updated_at", "revision_number"})


@dataclasses.dataclass
class Touched:
    db: Database
    networks: set[str] = dataclasses.field(default_factory=set)  # every port on them
    dhcp_networks: set[str] = dataclasses.field(default_factory=set)
    subnets: set[str] = dataclasses.field(default_factory=set)
    ports: set[str] = dataclasses.field(default_factory=set)
    hosts: set[str] = dataclasses.field(default_factory=set)
    physnets: set[str] = dataclasses.field(default_factory=set)
    rules_of: set[str] = dataclasses.field(default_factory=set)  # groups whose rules changed
    members_of: set[str] = dataclasses.field(default_factory=set)  # groups whose members changed
    everything: bool = False


_WATCH: ContextVar[Touched | None] = ContextVar("saphira_network_touched", default=None)


@contextmanager
def watching(db: Database) -> Iterator[Touched]:
    """Note what the writes of ``db`` in this thread (and context) touch until the block ends."""
    touched = Touched(db)
    token = _WATCH.set(touched)
    try:
        yield touched
    finally:
        _WATCH.reset(token)


def _hosts(port: m.Port) -> set[str]:
    history = sa.inspect(port).attrs["binding_host_id"].history
    return {host for host in (*history.added, *history.unchanged, *history.deleted) if host}


def note(touched: Touched, row: object) -> None:
    match row:
        case m.Network():
            touched.networks.add(row.id)
        case m.NetworkSegment():
            touched.networks.add(row.network_id)
            touched.physnets.add(row.physical_network)
        case m.Subnet():
            touched.dhcp_networks.add(row.network_id)
        case m.AllocationPool() | m.DnsNameserver() | m.HostRoute():
            touched.subnets.add(row.subnet_id)
        case m.Port():
            touched.ports.add(row.id)
            touched.dhcp_networks.add(row.network_id)
            touched.hosts |= _hosts(row)
        case m.IPAllocation() | m.AllowedAddressPair():
            touched.ports.add(row.port_id)
        case m.PortSecurityGroup():
            touched.ports.add(row.port_id)
            touched.members_of.add(row.security_group_id)
        case ext.SecurityGroup():
            touched.rules_of.add(row.id)
        case ext.SecurityGroupRule():
            touched.rules_of.add(row.security_group_id)
        case _ if not isinstance(row, UNWIRED):
            touched.everything = True


@event.listens_for(Session, "after_flush")
def _flushed(session: Session, flush_context: Any) -> None:
    touched = _WATCH.get()
    if touched is None:
        return
    changed = [row for row in session.dirty if isinstance(row, m.Base) and _rewired(row)]
    for row in (*session.new, *changed, *session.deleted):  # a new child is its own row
        if isinstance(row, m.Base):
            note(touched, row)


def _rewired(row: m.Base) -> bool:
    """Whether a changed row changed a column an agent sees (not a name or a revision)."""
    state = sa.inspect(row)
    columns = state.mapper.column_attrs.keys()
    return any(state.attrs[key].history.has_changes() for key in columns if key not in NAMES)


def _column(
    session: Session, column: InstrumentedAttribute[Any], key: Any, ids: Iterable[str]
) -> set[Any]:
    """``column`` of the rows whose ``key`` is one of ``ids`` (no query for none)."""
    wanted = set(ids)
    if not wanted:
        return set()
    return set(session.scalars(sa.select(column).where(key.in_(wanted)).distinct()))


def _hosts_in_groups(session: Session, groups: set[str]) -> set[str]:
    if not groups:
        return set()
    query = (
        sa.select(m.Port.binding_host_id)
        .join(m.PortSecurityGroup, m.PortSecurityGroup.port_id == m.Port.id)
        .where(m.PortSecurityGroup.security_group_id.in_(groups))
        .distinct()
    )
    return set(session.scalars(query))


def resolve(session: Session, touched: Touched) -> AgentChange | None:
    """The change to send, or None when no agent wires anything the rows touched."""
    if touched.everything:
        return AgentChange(everything=True)
    ports = session.execute(
        sa.select(m.Port.network_id, m.Port.binding_host_id).where(m.Port.id.in_(touched.ports))
    ).all()
    members = touched.members_of | _column(
        session, m.PortSecurityGroup.security_group_id, m.PortSecurityGroup.port_id, touched.ports
    )
    remote = _column(
        session, ext.SecurityGroupRule.security_group_id, ext.SecurityGroupRule.remote_group_id,
        members,
    )  # fmt: skip
    groups = touched.rules_of | remote
    hosts = touched.hosts | {host for _, host in ports}
    hosts |= _hosts_in_groups(session, groups)
    hosts |= _column(session, m.Port.binding_host_id, m.Port.network_id, touched.networks)
    networks = touched.networks | touched.dhcp_networks | {net for net, _ in ports}
    networks |= _column(session, m.Subnet.network_id, m.Subnet.id, touched.subnets)
    physnets = touched.physnets | _column(
        session, m.NetworkSegment.physical_network, m.NetworkSegment.network_id, networks
    )
    hosts.discard("")
    if not (networks or hosts or physnets):
        return None
    return AgentChange(sorted(networks), sorted(physnets), sorted(hosts))


def pending() -> AgentChange | None:
    """What the writes watched so far concern (everything when nothing was watched)."""
    touched = _WATCH.get()
    if touched is None:
        return AgentChange(everything=True)
    try:
        with touched.db.reader() as session:
            return resolve(session, touched)
    except Exception:
        LOG.warning("could not tell which agents a change concerns; nudging all", exc_info=True)
        return AgentChange(everything=True)
