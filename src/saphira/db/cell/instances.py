"""The instances repository of a cell database.

State changes go through ``save_state`` only: one ``UPDATE ... WHERE uuid =
:u AND vm_state IN (...) AND task_state IS/IN (...)``. Whoever loses the race
matches no row and gets ``InstanceInvalidState`` naming what the instance is
now, so two concurrent actions can never both win (architecture rule 2).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy import orm
from sqlalchemy.orm import Session

from saphira.db.cell import instance_rows, models
from saphira.domain.states import TaskState, VmState
from saphira.domain.transitions import Transition
from saphira.exception import BadRequest, InstanceInvalidState, InstanceNotFound
from saphira.objects import Instance, InstanceVIF

_STATE_COLUMNS = frozenset({"vm_state", "task_state", "power_state"})


class MarkerNotFound(BadRequest):
    msg_fmt = "marker [%(marker)s] not found"


@dataclasses.dataclass(frozen=True)
class InstanceFilters:
    """``GET /servers`` filters, already translated from the API's words."""

    project_id: str | None = None
    name: str | None = None  # a regular expression, searched (not anchored)
    vm_states: Collection[VmState] | None = None
    task_states: Collection[TaskState] | None = None
    flavorid: str | None = None
    image_ref: str | None = None
    changes_since: dt.datetime | None = None
    host: str | None = None
    reservation_id: str | None = None
    uuids: Collection[str] | None = None
    deleted: bool | None = False  # None: both; changes-since lists deleted ones too


def create(session: Session, instance: Instance) -> Instance:
    """Insert the instance with its metadata and tags; returns it with id/created_at."""
    insert(session, instance)
    return get(session, instance.uuid)


def insert(session: Session, instance: Instance) -> None:
    """``create`` for a caller that needs nothing back (the conductor's build)."""
    row = instance_rows.to_row(instance)
    # updated_at starts at created_at so changes-since sees new servers too.
    row.created_at = row.updated_at = instance.created_at or _now()
    session.add(row)
    session.flush()
    _add_children(session, instance.uuid, instance.metadata, instance.tags)


def get(session: Session, uuid: str, *, read_deleted: bool = False) -> Instance:
    """The row, then its children in one statement (``_children``): a fraction of the
    cost of the relationships' loaders for one row."""
    row = _row(session, uuid, read_deleted)
    return instance_rows.to_object(row, _children(session, uuid))


# The reads of one instance, built once with a bound :uuid. SQLAlchemy memoises a
# statement's cache key on the statement object; a statement built per call pays for
# its construction and its cache key each time (about 0.3 ms for _CHILDREN, five times
# what executing it costs).
_UUID = sa.bindparam("uuid", type_=sa.String())


def _children_statement() -> sa.Executable:
    meta, tag, cache = models.InstanceMetadata, models.Tag, models.InstanceInfoCache
    text, zero = sa.String(), sa.literal(0, sa.Integer)
    return sa.union_all(
        sa.select(sa.literal("m", text), meta.id, meta.key, meta.value)
        .where(meta.instance_uuid == _UUID, meta.deleted == 0),
        sa.select(sa.literal("t", text), zero, tag.tag, sa.null())
        .where(tag.resource_id == _UUID),
        sa.select(sa.literal("c", text), zero, sa.literal("", text), cache.network_info)
        .where(cache.instance_uuid == _UUID),
    ).order_by(sa.literal_column("1"), sa.literal_column("2"), sa.literal_column("3"))  # fmt: skip


_CHILDREN = _children_statement()
_ROW = sa.select(models.Instance).where(models.Instance.uuid == _UUID)
_ROW = _ROW.options(orm.lazyload("*"))
_LIVE_ROW = _ROW.where(models.Instance.deleted == 0)
_VM_STATE = sa.select(models.Instance.vm_state).where(
    models.Instance.uuid == _UUID, models.Instance.deleted == 0
)
_INFO_CACHE = sa.select(models.InstanceInfoCache).where(
    models.InstanceInfoCache.instance_uuid == _UUID
)
_FINISH_STATE = sa.select(models.Instance.vm_state, models.Instance.system_metadata).where(
    models.Instance.uuid == _UUID, models.Instance.deleted == 0
)


def _children(session: Session, uuid: str) -> instance_rows.Children:
    """Metadata (in the order written), tags (sorted) and the info cache's text, read as
    one UNION ALL of (kind, order, key, value) rows instead of three SELECTs."""
    rows: Sequence[Any] = session.execute(_CHILDREN, {"uuid": uuid}).all()
    metadata = {key: value for kind, _, key, value in rows if kind == "m"}
    tags = [key for kind, _, key, _ in rows if kind == "t"]
    cached = [value for kind, _, _, value in rows if kind == "c"]
    return instance_rows.Children(metadata, tags, cached[0] if cached else None)


def vm_state_of(session: Session, uuid: str) -> VmState:
    """The vm_state of a live instance, read alone: what a compare-and-swap expects,
    without loading the row, its metadata, tags and info cache."""
    found = session.scalar(_VM_STATE, {"uuid": uuid})
    if found is None:
        raise InstanceNotFound(instance_id=uuid)
    return VmState(found)


def finish_state_of(session: Session, uuid: str) -> tuple[VmState, str | None]:
    """What a finishing compare-and-swap reads: the vm_state and the system metadata's
    old_vm_state (a stop's or resize's way back), two columns instead of the instance."""
    found = session.execute(_FINISH_STATE, {"uuid": uuid}).one_or_none()
    if found is None:
        raise InstanceNotFound(instance_id=uuid)
    prior = json.loads(found.system_metadata or "{}").get("old_vm_state")
    return VmState(found.vm_state), None if prior is None else str(prior)


def list_instances(
    session: Session,
    filters: InstanceFilters = InstanceFilters(),
    *,
    limit: int | None = None,
    marker: str | None = None,
) -> list[Instance]:
    """Newest first (created_at, then id), as Nova sorts by default."""
    query = sa.select(models.Instance).where(*_conditions(filters))
    if marker is not None:
        query = query.where(_after(session, marker))
    query = query.order_by(models.Instance.created_at.desc(), models.Instance.id.desc())
    if limit is not None:
        query = query.limit(limit)
    return [instance_rows.to_object(row) for row in session.scalars(query)]


def save_state(
    session: Session,
    uuid: str,
    expected_vm_states: VmState | Iterable[VmState],
    expected_task_states: TaskState | Iterable[TaskState | None] | None,
    *,
    method: str = "update",
    **new: object,
) -> None:
    """Compare-and-swap the state columns (and any others given in ``new``)."""
    vms = _as_set(expected_vm_states)
    tasks = _as_set(expected_task_states)
    params: dict[str, object] = {f"new_{key}": _column_value(value) for key, value in new.items()}
    params.update(
        swapped=uuid, new_updated_at=_now(), vms=[vm for vm in vms if vm is not None],
        tasks=[task for task in tasks if task is not None],
    )  # fmt: skip
    result = session.execute(_swap(tuple(sorted(new)), None in tasks), params)
    if result.rowcount == 1:  # type: ignore[attr-defined]
        return
    current = _row(session, uuid, read_deleted=False)
    session.refresh(current)
    attr, state = (
        ("vm_state", current.vm_state)
        if current.vm_state not in vms
        else ("task_state", current.task_state)
    )
    raise InstanceInvalidState(attr=attr, instance_uuid=uuid, state=state, method=method)


# The compare-and-swap UPDATEs, one per shape (the columns written, whether a NULL
# task_state matches), built once: the expected states and the values are bound.
_SWAPS: dict[tuple[tuple[str, ...], bool], sa.Update] = {}


def _swap(columns: tuple[str, ...], null_task: bool) -> sa.Update:
    found = _SWAPS.get((columns, null_task))
    if found is None:
        t = models.Instance
        task: sa.ColumnElement[bool] = t.task_state.in_(sa.bindparam("tasks", expanding=True))
        if null_task:
            task = sa.or_(task, t.task_state.is_(None))
        found = _SWAPS[(columns, null_task)] = (
            sa.update(t)
            .where(t.uuid == sa.bindparam("swapped", type_=sa.String()), t.deleted == 0)
            .where(t.vm_state.in_(sa.bindparam("vms", expanding=True)), task)
            .values({name: sa.bindparam(f"new_{name}") for name in columns})
            .values(updated_at=sa.bindparam("new_updated_at"))
            .execution_options(synchronize_session=False)
        )
    return found


def apply(
    session: Session, uuid: str, move: Transition, *, method: str = "update", **columns: object
) -> None:
    """``save_state`` for a transition from ``saphira.domain.transitions``, writing
    plain ``columns`` (launched_at, host...) in the same UPDATE; never state columns."""
    if _STATE_COLUMNS & columns.keys():
        raise ValueError("state columns change only through the transition")
    save_state(
        session,
        uuid,
        move.expected_vm_states,
        move.expected_task_states,
        method=method,
        **columns,
        **move.changes(),
    )


def split_columns(values: Mapping[str, object]) -> tuple[dict[str, object], dict[str, object]]:
    """(the instances table's own non-state columns, the rest: metadata, tags, the
    network info...) of ``values``, so the columns can ride in a compare-and-swap."""
    names = models.Instance.__table__.columns.keys()
    columns = {k: v for k, v in values.items() if k in names and k not in _STATE_COLUMNS}
    return columns, {k: v for k, v in values.items() if k not in columns}


def write_info_cache(session: Session, uuid: str, vifs: Iterable[InstanceVIF]) -> None:
    """The network info cache alone, for a caller that already wrote the row."""
    _save_info_cache(session, uuid, list(vifs))


def update(session: Session, uuid: str, **values: object) -> Instance:
    """Plain columns (name, host, launched_at...), metadata, tags and the network
    info cache (``network_info``: a list of InstanceVIF); never the state columns."""
    if _STATE_COLUMNS & values.keys():
        raise ValueError("state columns change only through save_state")
    metadata = values.pop("metadata", None)
    tags = values.pop("tags", None)
    network_info = values.pop("network_info", None)
    row = _row(session, uuid, read_deleted=False)
    if network_info is not None:
        _save_info_cache(session, uuid, list(network_info))  # type: ignore[call-overload]
    for key, value in values.items():
        setattr(row, key, _column_value(value))
    row.updated_at = _now()
    _replace_children(
        session,
        uuid,
        None if metadata is None else dict(metadata),  # type: ignore[call-overload]
        None if tags is None else list(tags),  # type: ignore[call-overload]
    )
    session.flush()
    session.expire(row)
    return get(session, uuid)


def soft_delete(session: Session, uuid: str) -> None:
    """Hide the row as Nova does (``deleted = id``), keeping it for changes-since."""
    row = _row(session, uuid, read_deleted=False)
    now = _now()
    row.deleted, row.deleted_at, row.terminated_at, row.updated_at = row.id, now, now, now
    session.flush()


def _row(session: Session, uuid: str, read_deleted: bool) -> models.Instance:
    """The row alone: its relationships are not loaded (a row read to be written does
    not need them, and ``get`` reads them more cheaply)."""
    query = _ROW if read_deleted else _LIVE_ROW
    row = session.scalars(query, {"uuid": uuid}).one_or_none()
    if row is None:
        raise InstanceNotFound(instance_id=uuid)
    return row


def _conditions(filters: InstanceFilters) -> list[sa.ColumnElement[bool]]:
    t = models.Instance
    where: list[sa.ColumnElement[bool]] = []
    if filters.deleted is not None:
        where.append(t.deleted != 0 if filters.deleted else t.deleted == 0)
    for column, value in (
        (t.project_id, filters.project_id),
        (t.flavorid, filters.flavorid),
        (t.image_ref, filters.image_ref),
        (t.host, filters.host),
        (t.reservation_id, filters.reservation_id),
    ):
        if value is not None:
            where.append(column == value)
    if filters.name is not None:
        where.append(t.display_name.regexp_match(filters.name))
    if filters.vm_states is not None:
        where.append(t.vm_state.in_([str(state) for state in filters.vm_states]))
    if filters.task_states is not None:
        where.append(t.task_state.in_([str(state) for state in filters.task_states]))
    if filters.changes_since is not None:
        where.append(t.updated_at >= filters.changes_since)
    if filters.uuids is not None:
        where.append(t.uuid.in_(list(filters.uuids)))
    return where


def _after(session: Session, marker: str) -> sa.ColumnElement[bool]:
    t = models.Instance
    found = session.execute(sa.select(t.created_at, t.id).where(t.uuid == marker)).one_or_none()
    if found is None:
        raise MarkerNotFound(marker=marker)
    created_at, row_id = found
    return sa.or_(t.created_at < created_at, sa.and_(t.created_at == created_at, t.id < row_id))


def _replace_children(
    session: Session, uuid: str, metadata: Mapping[str, str] | None, tags: Iterable[str] | None
) -> None:
    if metadata is not None:
        session.execute(
            sa.delete(models.InstanceMetadata).where(models.InstanceMetadata.instance_uuid == uuid)
        )
    if tags is not None:
        session.execute(sa.delete(models.Tag).where(models.Tag.resource_id == uuid))
    _add_children(session, uuid, metadata, tags)


def _add_children(
    session: Session, uuid: str, metadata: Mapping[str, str] | None, tags: Iterable[str] | None
) -> None:
    """The rows of a new instance's metadata and tags (a new row has none to delete)."""
    session.add_all(
        models.InstanceMetadata(instance_uuid=uuid, key=key, value=value)
        for key, value in (metadata or {}).items()
    )
    session.add_all(models.Tag(resource_id=uuid, tag=tag) for tag in sorted(set(tags or ())))
    session.flush()


def _save_info_cache(session: Session, uuid: str, vifs: list[InstanceVIF]) -> None:
    """One row per instance, written over (Nova's instance_info_caches)."""
    text = instance_rows.network_info_text(vifs)
    cache = session.scalars(_INFO_CACHE, {"uuid": uuid}).one_or_none()
    if cache is None:
        session.add(models.InstanceInfoCache(instance_uuid=uuid, network_info=text))
    else:
        cache.network_info = text


def _as_set(value: str | Iterable[str | None] | None) -> set[str | None]:
    """Plain strings (drivers do not all adapt enum subclasses)."""
    if value is None or isinstance(value, str):
        return {None if value is None else str(value)}
    return {None if item is None else str(item) for item in value}


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def _column_value(value: object) -> object:
    if isinstance(value, str):
        return str(value)
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else value
