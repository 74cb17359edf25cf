"""One page of servers: build requests merged with every cell's sorted rows.

Each cell answers in SQL the filters it can (``InstanceFilters``), the sort,
the limit and the start after the marker (``db.cell.instance_pages``); the
build requests still in the API database are a small stream sorted here in
the same order; ``heapq.merge`` interleaves the streams and the page takes
what it needs. Filters only Python can run (a name's regular expression,
tags, a status's task states...) go in ``Page.keep``: a cell whose batch
they thin out is asked for the next batch after its last row, until the
page is full or the cell has no more, so a filtered page never reads every
row and never comes out short.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from saphira.computesvc.caller import Caller
from saphira.db.api import build_requests
from saphira.db.api.cells import Cell
from saphira.db.cell import instance_pages
from saphira.db.cell.instance_pages import MarkerNotFound, Order, Position, SortKey
from saphira.db.cell.instances import InstanceFilters
from saphira.objects import Instance

__all__ = ["NEWEST_FIRST", "InstanceFilters", "Order", "Page", "SortKey", "gather", "page"]

MAX_BATCH = 1000  # rows per statement when Python filters ask for more after the first
NEWEST_FIRST = Order((SortKey("created_at", descending=True),))  # Nova's default order
EVERY = 2**31 - 1  # "no limit" for gather


@dataclass(frozen=True)
class Page:
    """What a listing asks for: ``count`` servers after ``marker``, in ``order``."""

    filters: InstanceFilters
    order: Order
    count: int
    marker: str | None = None
    keep: Callable[[Instance], bool] | None = None  # Python-only filters; None: all pass


def page(caller: Caller, wanted: Page) -> list[Instance]:
    """At most ``wanted.count`` servers; a server the conductor moved into a cell
    between two reads is listed once. MarkerNotFound (400) for an unknown marker."""
    cells = caller.cells(with_cell0=True)
    start = None if wanted.marker is None else _start(caller, cells, wanted)
    streams = [_requests(caller, wanted, start)]
    streams += [_cell_rows(caller, cell, wanted, start) for cell in cells]
    live = [stream for stream in map(_started, streams) if stream is not None]
    # One stream with rows (one cell, no build request: the usual page) is in order as it
    # comes; the merge would compute every row's sort key to learn nothing.
    merged = live[0] if len(live) == 1 else heapq.merge(*live, key=wanted.order.key)
    return list(itertools.islice(_unique(merged), wanted.count))


def _started(stream: Iterator[Instance]) -> Iterator[Instance] | None:
    """The stream as it was, or None if it has no row (its first row is read to know)."""
    first = next(stream, None)
    return None if first is None else itertools.chain((first,), stream)


def gather(caller: Caller, filters: InstanceFilters) -> list[Instance]:
    """Every server ``filters`` let through, newest first (no page)."""
    return page(caller, Page(filters, NEWEST_FIRST, EVERY))


def _start(caller: Caller, cells: list[Cell], wanted: Page) -> Position:
    """The marker's position: a build request's or a cell row's, deleted or not, seen
    within the listing's project (Nova looks the marker up by uuid alone)."""
    assert wanted.marker is not None
    project = wanted.filters.project_id
    for request in build_requests.list_requests(caller.api, project):
        if request.uuid == wanted.marker:
            return wanted.order.position(request)
    for cell in cells:
        with caller.cell(cell) as session:
            try:
                return instance_pages.position_of(session, wanted.marker, wanted.order, project)
            except MarkerNotFound:
                continue
    raise MarkerNotFound(marker=wanted.marker)


def _requests(caller: Caller, wanted: Page, start: Position | None) -> Iterator[Instance]:
    """The build requests that pass, sorted; none when only deleted servers are asked for."""
    filters = wanted.filters
    if filters.deleted:
        return iter(())
    since = filters.changes_since
    found = [
        i for i in build_requests.list_requests(caller.api, filters.project_id)
        if (since is None or (i.created_at and i.created_at >= since))
        and (start is None or wanted.order.after(i, start))
        and (wanted.keep is None or wanted.keep(i))
    ]  # fmt: skip
    return iter(sorted(found, key=wanted.order.key))


def _cell_rows(
    caller: Caller, cell: Cell, wanted: Page, start: Position | None
) -> Iterator[Instance]:
    """A cell's rows in order, read lazily: a batch of ``count`` first, then more after
    the last row read only when Python's filters thinned it and the merge asks."""
    batch = max(wanted.count, 1)
    while True:
        with caller.cell(cell) as session:
            rows = instance_pages.page(session, wanted.filters, wanted.order, start, batch)
        for row in rows:
            if wanted.keep is None or wanted.keep(row):
                yield row
        if len(rows) < batch:
            return
        start, batch = wanted.order.position(rows[-1]), min(batch * 2, MAX_BATCH)


def _unique(merged: Iterator[Instance]) -> Iterator[Instance]:
    seen: set[str] = set()
    for instance in merged:
        if instance.uuid not in seen:
            seen.add(instance.uuid)
            yield instance
