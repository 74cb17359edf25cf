"""Quota limits, usage and atomic claims over the API database.

Usage is counted, never tracked: instances, cores and ram from the instance
mappings and request specs, key pairs, server groups and their members from
their own tables. A claim (``QuotaEngine.reserve``) serialises on one
``quota_locks`` row per project: the transaction's first statement is an
UPDATE of that row, which every backend turns into a lock held until commit
(a row lock on PostgreSQL and MariaDB, the database write lock on SQLite).
Counting after the lock and inserting before the commit means 50 concurrent
claims against a quota of 10 admit exactly 10, on all three backends.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from oslo_config import cfg
from sqlalchemy import exc
from sqlalchemy.orm import Session

from saphira.db.api import models
from saphira.db.transactions import Database
from saphira.domain import quota
from saphira.exception import DatabaseError, Forbidden

# Every resource Nova's quota sets show, in its order; the last four are only
# shown before microversion 2.36 and never enforced (networking is Neutron's).
RESOURCES = (
    "instances", "cores", "ram", "metadata_items", "injected_files",
    "injected_file_content_bytes", "injected_file_path_bytes", "key_pairs",
    "server_groups", "server_group_members",
)  # fmt: skip
LEGACY_NETWORK = {"floating_ips": 10, "fixed_ips": -1, "security_groups": 10,
                  "security_group_rules": 20}  # fmt: skip
COUNTED = ("instances", "cores", "ram", "key_pairs", "server_groups", "server_group_members")
_OPTION = {"injected_file_path_bytes": "injected_file_path_length"}
_UNITS = {"ram": "MB"}


class OverQuota(Forbidden):
    msg_fmt = "Quota exceeded for %(resource)s."


@dataclass(frozen=True)
class Scope:
    """Whose usage: a project, optionally one of its users, optionally one server group."""

    project_id: str
    user_id: str | None = None
    group_uuid: str | None = None


def defaults_from_conf(conf: cfg.ConfigOpts) -> dict[str, int]:
    return {name: int(conf.quota[_OPTION.get(name, name)]) for name in RESOURCES}


def _counted(value: Any) -> int:
    return int(value or 0)


def _count_where(column: Any, when: sa.ColumnElement[bool] | None) -> Any:
    """count(column), or only where ``when`` holds."""
    return sa.func.count(column if when is None else sa.case((when, column)))


def _sum_where(column: Any, when: sa.ColumnElement[bool] | None) -> Any:
    summed = column if when is None else sa.case((when, column))
    return sa.func.coalesce(sa.func.sum(summed), 0)


def _usage_select(scope: Scope) -> sa.Select[Any]:
    """One statement: the project's instances, cores, ram and server groups, the same
    for the scope's user (if any) by a CASE on user_id, the user's key pairs and the
    scope's group members. Built once per shape, the scope's ids bound (``_params``)."""
    return _usage_shape(scope.user_id is not None, scope.group_uuid is not None)


def _params(scope: Scope) -> dict[str, str | None]:
    return {"q_project": scope.project_id, "q_user": scope.user_id, "q_group": scope.group_uuid}


_PROJECT = sa.bindparam("q_project", type_=sa.String())
_USER = sa.bindparam("q_user", type_=sa.String())


@functools.cache
def _usage_shape(by_user: bool, by_group: bool) -> sa.Select[Any]:
    mapping, spec, group = models.InstanceMapping, models.RequestSpec, models.InstanceGroup
    columns: list[Any] = []
    for when in (None, mapping.user_id == _USER) if by_user else (None,):
        columns += [_count_where(mapping.id, when), _sum_where(spec.vcpus, when),
                    _sum_where(spec.memory_mb, when)]  # fmt: skip
    groups = sa.select(sa.func.count(group.id)).where(group.project_id == _PROJECT)
    columns.append(groups.scalar_subquery())
    if by_user:
        columns.append(groups.where(group.user_id == _USER).scalar_subquery())
        pairs = sa.select(sa.func.count(models.KeyPair.id)).where(models.KeyPair.user_id == _USER)
        columns.append(pairs.scalar_subquery())
    if by_group:
        member = models.InstanceGroupMember
        members = (
            sa.select(sa.func.count(member.id))
            .join(group, group.id == member.group_id)
            .where(group.uuid == sa.bindparam("q_group", type_=sa.String()))
        )
        columns.append(members.scalar_subquery())
    return (
        sa.select(*columns)
        .select_from(mapping)
        .outerjoin(spec, spec.instance_uuid == mapping.instance_uuid)
        .where(mapping.project_id == _PROJECT, mapping.queued_for_delete.is_(False))
    )


def count_usages(session: Session, scope: Scope) -> tuple[dict[str, int], dict[str, int] | None]:
    """What the project uses now, and (if the scope names a user) what that user uses,
    counted in one statement; key pairs are a user's own (0 in the project's usage)."""
    found = session.execute(_usage_select(scope), _params(scope)).one()
    row = [_counted(value) for value in found]
    project = dict(zip(("instances", "cores", "ram"), row[0:3], strict=True))
    user = None
    if scope.user_id is not None:
        user = dict(zip(("instances", "cores", "ram"), row[3:6], strict=True))
        project["server_groups"], user["server_groups"], user["key_pairs"] = row[6:9]
        project["key_pairs"], rest = 0, row[9:]
    else:
        project["server_groups"], project["key_pairs"], rest = row[3], 0, row[4:]
    members = rest[0] if rest else 0
    project["server_group_members"] = members
    if user is not None:
        user["server_group_members"] = members
    return project, user


def count_usage(session: Session, scope: Scope) -> dict[str, int]:
    """What the project (or user) uses now; key pairs are always the user's own."""
    project, user = count_usages(session, scope)
    return project if user is None else user


def _rows(session: Session, model: type[models.Base], **where: str) -> dict[str, int]:
    rows = session.scalars(sa.select(model).filter_by(**where)).all()
    return {row.resource: row.hard_limit for row in rows if row.hard_limit is not None}  # type: ignore[attr-defined]


def _layers(
    session: Session, scope: Scope
) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """The default class's, the project's and (if the scope names one) the user's stored
    limits, read in one statement (UNION ALL, each row tagged with its layer)."""
    layers: tuple[dict[str, int], dict[str, int], dict[str, int]] = ({}, {}, {})
    query = _layers_shape(scope.user_id is not None)
    for layer, resource, limit in session.execute(query, _params(scope)):
        if limit is not None:
            layers[int(layer)][str(resource)] = int(limit)
    return layers


@functools.cache
def _layers_shape(by_user: bool) -> sa.CompoundSelect[Any]:
    """``_layers``' statement, built once per shape with the scope's ids bound."""
    klass, project, user = models.QuotaClass, models.Quota, models.ProjectUserQuota
    parts = [
        sa.select(sa.literal(0), klass.resource, klass.hard_limit)
        .where(klass.class_name == "default"),
        sa.select(sa.literal(1), project.resource, project.hard_limit)
        .where(project.project_id == _PROJECT),
    ]  # fmt: skip
    if by_user:
        parts.append(
            sa.select(sa.literal(2), user.resource, user.hard_limit).where(
                user.project_id == _PROJECT, user.user_id == _USER
            )
        )
    return sa.union_all(*parts)


class QuotaEngine:
    """Limits from defaults < quota class 'default' < project < user, and claims."""

    def __init__(self, defaults: Mapping[str, int]) -> None:
        self.defaults = dict(defaults)

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> QuotaEngine:
        return cls(defaults_from_conf(conf))

    def default_limits(self, session: Session) -> dict[str, int]:
        limits = dict(self.defaults)
        limits.update(_rows(session, models.QuotaClass, class_name="default"))
        return limits

    def project_limits(self, session: Session, project_id: str) -> dict[str, int]:
        """The defaults, the class 'default' and the project's rows, in one statement."""
        classes, project, _ = _layers(session, Scope(project_id))
        return {**self.defaults, **classes, **project}

    def user_limits(self, session: Session, project_id: str, user_id: str) -> dict[str, int]:
        """The user's limits: the project's, overridden by the user's own rows (one
        statement)."""
        classes, project, user = _layers(session, Scope(project_id, user_id))
        return {**self.defaults, **classes, **project, **user}

    def _limits_and_usage(
        self, session: Session, scope: Scope
    ) -> list[tuple[dict[str, int], dict[str, int]]]:
        """(limits, usage) of the project, then of the user if the scope names one."""
        classes, project, user = _layers(session, scope)
        project_limits = {**self.defaults, **classes, **project}
        project_usage, user_usage = count_usages(session, scope)
        checks = [(project_limits, project_usage)]
        if user_usage is not None:
            checks.append(({**project_limits, **user}, user_usage))
        return checks

    def check(self, session: Session, scope: Scope, deltas: Mapping[str, int]) -> None:
        """OverQuota unless usage + deltas fits both the project's and the user's limits.

        Alone it is only advisory (another transaction may claim meanwhile);
        inside ``reserve`` it runs under the project's lock.
        """
        for limits, usage in self._limits_and_usage(session, scope):
            for resource, delta in deltas.items():
                limit = limits.get(resource, -1)
                if delta > 0 and limit >= 0 and usage.get(resource, 0) + delta > limit:
                    raise OverQuota(_message(resource, delta, usage.get(resource, 0), limit))

    def most_that_fit(
        self, session: Session, scope: Scope, each: Mapping[str, int], least: int, most: int
    ) -> int:
        """How many of ``each`` (``least`` to ``most``) fit the project's and the user's
        headroom, read once; QuotaExceeded (403, Nova's words) if not even ``least``."""
        for limits, usage in self._limits_and_usage(session, scope):
            most = quota.most_that_fit(limits, usage, each, least, most)
        return most

    def check_absolute(self, session: Session, project_id: str, values: Mapping[str, int]) -> None:
        """Limits that are not counted (metadata_items, injected_files...): value <= limit.

        A limit is -1 (none) or at least 0, so values of 0 pass whatever it is: then
        nothing is read (a server created without metadata asks for 0 items)."""
        if all(value <= 0 for value in values.values()):
            return
        limits = self.project_limits(session, project_id)
        for resource, value in values.items():
            limit = limits.get(resource, -1)
            if 0 <= limit < value:
                raise OverQuota(f"Quota exceeded for {resource}: {value} requested, limit {limit}.")

    @contextmanager
    def reserve(self, db: Database, scope: Scope, deltas: Mapping[str, int]) -> Iterator[Session]:
        """A session holding the project's quota lock, committed on success.

        Insert the rows that consume the quota (instance mappings with request
        specs, key pairs, groups, members) in this session before leaving the
        block; OverQuota is raised on entry when the claim does not fit.
        """
        ensure_lock_row(db, scope.project_id)
        with db.session() as session:
            _lock(db, session, scope.project_id)
            self.check(session, scope, deltas)
            yield session

    @contextmanager
    def reserve_up_to(
        self, db: Database, scope: Scope, each: Mapping[str, int], least: int, most: int
    ) -> Iterator[tuple[Session, int]]:
        """``reserve`` for "as many as fit": under the project's lock, the headroom
        is computed once and the session comes with the count granted (between
        ``least`` and ``most``), whose rows the caller inserts before leaving."""
        ensure_lock_row(db, scope.project_id)
        with db.session() as session:
            _lock(db, session, scope.project_id)
            granted = self.most_that_fit(session, scope, each, least, most)
            yield session, granted


def _message(resource: str, delta: int, used: int, limit: int) -> str:
    unit = _UNITS.get(resource, resource)
    return (
        f"Quota exceeded for {resource}: Requested {delta}, but already used {used} "
        f"of {limit} {unit}"
    )


# Projects whose lock row each database is known to hold: lock rows are never deleted,
# so a process makes sure of a project's row once, not in a transaction per claim.
_ENSURED: weakref.WeakKeyDictionary[Database, set[str]] = weakref.WeakKeyDictionary()


def ensure_lock_row(db: Database, project_id: str) -> None:
    """Create the project's lock row in its own transaction (a race is harmless), once."""
    known = _ENSURED.setdefault(db, set())
    if project_id in known:
        return
    try:
        with db.session() as session:
            if session.get(models.QuotaLock, project_id) is None:
                session.add(models.QuotaLock(project_id=project_id, generation=0))
    except exc.IntegrityError:
        pass  # another claim made it first
    known.add(project_id)


def _lock(db: Database, session: Session, project_id: str) -> None:
    """``lock``; a row gone after all (a database recreated beneath this process) is
    made again by the next claim."""
    try:
        lock(session, project_id)
    except DatabaseError:
        _ENSURED.get(db, set()).discard(project_id)
        raise


def lock(session: Session, project_id: str) -> None:
    """Take the project's quota lock; must be the transaction's first statement."""
    if session.execute(_LOCK, {"q_project": project_id}).rowcount != 1:  # type: ignore[attr-defined]
        raise DatabaseError(detail=f"quota lock row for project {project_id} is missing")


# Built once with the project bound. The first statement of a fresh session: no
# QuotaLock object is loaded in it to synchronise.
_LOCK = (
    sa.update(models.QuotaLock)
    .where(models.QuotaLock.project_id == _PROJECT)
    .values(generation=models.QuotaLock.generation + 1)
    .execution_options(synchronize_session=False)
)
