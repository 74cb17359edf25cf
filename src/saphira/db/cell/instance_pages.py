"""One cell's page of a server listing, sorted, limited and started in SQL.

Nova's way (``nova.compute.multi_cell_list``): each cell answers ``ORDER BY
the sort keys, uuid LIMIT n`` after the marker's sort values, and the API
merges the cells' sorted answers. The order is the same in SQL and in
Python (``Order.key``): per key, NULLs first ascending and last descending
(whatever the database's own habit), then the uuid ascending as the
tie-breaker, so two servers never compare equal and a page never repeats or
skips one. A page's rows and their metadata, tags and info caches are read
in three statements, whatever the page's length.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.db.cell import instance_rows, models
from saphira.db.cell.instances import InstanceFilters, MarkerNotFound, _conditions
from saphira.db.id_lists import ByIds
from saphira.objects import Instance

__all__ = ["CHUNK", "MarkerNotFound", "Order", "Position", "SortKey", "page", "position_of"]


@dataclasses.dataclass(frozen=True)
class SortKey:
    """An ``instances`` column (``flavorid`` for the flavor) and its direction."""

    column: str
    descending: bool = False


CHUNK = 5000  # uuids bound in one statement (SQLite allows 32,766 parameters)
# Where a page starts: the sort values of the row before it, then its uuid.
Position = tuple[Any, ...]


def _plain(value: object) -> object:
    """What the database holds for a value of the object (enums as their values)."""
    return value.value if isinstance(value, enum.Enum) else value


@dataclasses.dataclass(frozen=True)
class Order:
    """The sort keys of a listing, with the uuid ascending after them."""

    keys: tuple[SortKey, ...]

    def position(self, instance: Instance) -> Position:
        values = [_plain(_value(instance, key.column)) for key in self.keys]
        return (*values, instance.uuid)

    def key(self, instance: Instance) -> _Ranked:
        """A sort key for Python's sorts and ``heapq.merge``: the same order as SQL's."""
        return _Ranked(self.position(instance), self.keys)

    def after(self, instance: Instance, start: Position) -> bool:
        return _Ranked(start, self.keys) < self.key(instance)


def _value(instance: Instance, column: str) -> object:
    return instance.flavor.flavorid if column == "flavorid" else getattr(instance, column)


class _Ranked:
    """A position compared key by key, each ascending or descending, NULLs first ascending."""

    __slots__ = ("keys", "values")

    def __init__(self, values: Position, keys: tuple[SortKey, ...]) -> None:
        self.values, self.keys = values, keys

    def __lt__(self, other: _Ranked) -> bool:
        for key, mine, theirs in zip(self.keys, self.values, other.values, strict=False):
            if mine == theirs:
                continue
            if mine is None or theirs is None:
                return (mine is None) != key.descending
            return bool(mine > theirs) if key.descending else bool(mine < theirs)
        return bool(self.values[-1] < other.values[-1])


def position_of(session: Session, uuid: str, order: Order, project_id: str | None) -> Position:
    """The marker's sort values, deleted or not, within ``project_id`` (None: any project)."""
    t = models.Instance
    columns = [getattr(t, key.column) for key in order.keys]
    query = sa.select(*columns, t.uuid).where(t.uuid == uuid)
    if project_id is not None:
        query = query.where(t.project_id == project_id)
    found = session.execute(query).one_or_none()
    if found is None:
        raise MarkerNotFound(marker=uuid)
    return tuple(found)


def page(
    session: Session, filters: InstanceFilters, order: Order, start: Position | None, count: int
) -> list[Instance]:
    """At most ``count`` rows matching ``filters``, in ``order``, after ``start``: three
    statements up to CHUNK rows (the page's uuids, sorted over the keys alone; the
    rows with their info caches; their metadata and tags)."""
    t = models.Instance
    query = sa.select(t.uuid).where(*_conditions(filters))
    if start is not None:
        query = query.where(_after(order, start))
    # The sort runs once, over narrow rows: sorting the wide rows (user data, flavor,
    # info cache) of 10,000 servers for a page of 1,000 cost five times as much on SQLite.
    ordering = _ordering(order, nulls_least=session.get_bind().dialect.name == "sqlite")
    uuids = list(session.scalars(query.order_by(*ordering).limit(count)))
    found: list[Instance] = []
    for first in range(0, len(uuids), CHUNK):  # one chunk for any page the API asks for
        found += _objects(session, uuids[first : first + CHUNK])
    return found


def _objects(session: Session, uuids: list[str]) -> list[Instance]:
    """The instances ``uuids`` name, in that order, with their children."""
    connection = session.connection()  # Core statements: no ORM entity to compile or load
    place = {uuid: index for index, uuid in enumerate(uuids)}
    rows = sorted(_ROWS.execute(connection, uuids), key=lambda row: place[row.uuid])
    metadata, tags = _children(connection, uuids)
    return [
        instance_rows.from_columns(row, instance_rows.Children(
            metadata.get(row.uuid, {}), tags.get(row.uuid, []), row.network_info))
        for row in rows
    ]  # fmt: skip


def _ordering(order: Order, *, nulls_least: bool = False) -> list[sa.ColumnElement[Any]]:
    """ORDER BY's terms. ``nulls_least``: the database sorts NULL before every value
    already (SQLite), so a nullable key needs no ``IS NOT NULL`` term first, which would
    keep it from walking an index in the key's order (a covering index then answers a
    project's default page without sorting the project's every row)."""
    t = models.Instance
    terms: list[sa.ColumnElement[Any]] = []
    for key in order.keys:
        column = getattr(t, key.column)
        present = column.is_not(None)
        if column.nullable and not nulls_least:  # NULLs first ascending, last descending
            terms.append(present.desc() if key.descending else present.asc())
        terms.append(column.desc() if key.descending else column.asc())
    terms.append(t.uuid.asc())
    return terms


def _after(order: Order, start: Position) -> sa.ColumnElement[bool]:
    """Rows strictly after ``start``: equal on the first keys, then after on the next."""
    t = models.Instance
    pairs = [(getattr(t, key.column), key.descending, value)
             for key, value in zip(order.keys, start, strict=False)]  # fmt: skip
    terms: list[sa.ColumnElement[bool]] = []
    for index, (column, descending, value) in enumerate(pairs):
        equal = [_equal(c, v) for c, _, v in pairs[:index]]
        terms.append(sa.and_(*equal, _beyond(column, descending, value)))
    terms.append(sa.and_(*[_equal(c, v) for c, _, v in pairs], t.uuid > start[-1]))
    return sa.or_(*terms)


def _equal(column: Any, value: object) -> sa.ColumnElement[bool]:
    return column.is_(None) if value is None else column == value  # type: ignore[no-any-return]


def _beyond(column: Any, descending: bool, value: object) -> sa.ColumnElement[bool]:
    if descending:  # NULLs come last
        return sa.false() if value is None else sa.or_(column < value, column.is_(None))
    return column.is_not(None) if value is None else column > value  # type: ignore[no-any-return]


_INSTANCES = models.Instance.__table__
_CACHES = models.InstanceInfoCache.__table__
_META = models.InstanceMetadata.__table__
_TAGS = models.Tag.__table__
# A page's rows (the columns to_object reads) with their info caches, by uuid (built
# once: a select of 30 columns and a join costs more to construct than to run for a
# short page; the uuids bound as id_lists does).
_ROWS = ByIds.of(lambda uuids: (
    sa.select(*(_INSTANCES.c[name] for name in instance_rows.READ), _CACHES.c.network_info)
    .outerjoin(_CACHES, _CACHES.c.instance_uuid == _INSTANCES.c.uuid)
    .where(_INSTANCES.c.uuid.in_(uuids))
))  # fmt: skip
# The page's metadata items (kind 0) and tags (kind 1) in one statement.
_CHILDREN = ByIds.of(lambda uuids: sa.union_all(
    sa.select(sa.literal_column("0").label("kind"), _META.c.instance_uuid.label("owner"),
              _META.c.key.label("name"), _META.c.value)
    .where(_META.c.instance_uuid.in_(uuids), _META.c.deleted == 0),
    sa.select(sa.literal_column("1"), _TAGS.c.resource_id, _TAGS.c.tag, sa.null())
    .where(_TAGS.c.resource_id.in_(uuids)),
))  # fmt: skip


def _children(
    connection: sa.Connection, uuids: list[str]
) -> tuple[dict[str, dict[str, str]], dict[str, list[str]]]:
    """The metadata and tags of the page's rows, by instance uuid."""
    metadata: dict[str, dict[str, str]] = {}
    tags: dict[str, list[str]] = {}
    for kind, owner, name, value in _CHILDREN.execute(connection, uuids):
        if kind == 0:
            metadata.setdefault(owner, {})[name] = value
        else:
            tags.setdefault(owner, []).append(name)
    return metadata, tags
