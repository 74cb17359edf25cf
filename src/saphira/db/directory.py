"""The cell directory: the API database, every cell's database, and the
mappings between them, shared by the compute API, the conductor and the
scheduler.

``CellDirectory.shared(conf)`` is the one directory of a process: ``saphira
up`` hands the same instance to the compute API, the conductor and the
scheduler (each per-service process builds its own, once). It holds one
``Database`` per URL on the process's shared engine (``saphira.db.shared``),
the instance -> cell cache (``saphira.db.cell_cache``; an instance whose cell
no longer has it is forgotten on ``InstanceNotFound``) and the local cell,
``[database] connection``. Sessions come from
``saphira.db.transactions.Database`` (one unit of work each), so the three
services find cells and open sessions the same way.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import sqlalchemy as sa
from oslo_config import cfg
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from saphira.db import shared
from saphira.db.api import connect
from saphira.db.api.cells import CELL0_UUID, Cell
from saphira.db.api.models import CellMapping, HostMapping, InstanceMapping
from saphira.db.cell_cache import CellCache
from saphira.db.transactions import Database
from saphira.exception import InstanceNotFound


@dataclass(frozen=True)
class Mapped:
    """An instance's mapping: its cell, or None while it is a build request."""

    cell: Cell | None


# Built once (a bound :uuid): a statement built per call pays for its cache key each
# time, and every GET /servers/{id} and every conductor look-up runs this one.
_MAPPING = sa.select(InstanceMapping).where(
    InstanceMapping.instance_uuid == sa.bindparam("uuid", type_=sa.String())
)
_LIVE_MAPPING = _MAPPING.filter_by(queued_for_delete=False)


def mapping_of(session: Session, instance_uuid: str, *, deleted: bool = True) -> Mapped | None:
    """Where the instance mapping puts an instance; None without a mapping (or, with
    ``deleted`` False, with one queued for delete). The one place a cell is found."""
    stmt = _MAPPING if deleted else _LIVE_MAPPING
    row = session.scalars(stmt, {"uuid": instance_uuid}).first()
    if row is None:
        return None
    return Mapped(None if row.cell_mapping is None else Cell.of(row.cell_mapping))


_CELLS = sa.select(CellMapping).order_by(CellMapping.id)  # built once, as _MAPPING


def cells_in(session: Session, *, with_cell0: bool = False) -> list[Cell]:
    """Every mapped cell in mapping order, read in the caller's API-DB session."""
    rows = session.scalars(_CELLS).all()
    return [Cell.of(row) for row in rows if with_cell0 or row.uuid != CELL0_UUID]


class CellDirectory:
    """Engines and sessions for the API database and each cell, by URL."""

    def __init__(
        self, api_url: str, *, local_url: str | None = None, connect_timeout: int = 10
    ) -> None:
        self._timeout = connect_timeout
        self._databases: dict[str, Database] = {}
        self._lock = threading.Lock()
        self.api_db = self.database(api_url)
        self.local_url = local_url
        self.cache = CellCache()

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> CellDirectory:
        """A directory of its own (tests; see ``shared`` for the services')."""
        return cls(
            connect.api_url(conf),
            local_url=connect.cell_url(conf),
            connect_timeout=conf.database.connect_timeout,
        )

    @classmethod
    def shared(cls, conf: cfg.ConfigOpts) -> CellDirectory:
        """The process's directory for these databases, made on first use."""
        key = (connect.api_url(conf), connect.cell_url(conf))
        with _SHARED_LOCK:
            found = _SHARED.get(key)
            if found is None:
                found = cls.from_conf(conf)
                _SHARED[key] = found
            return found

    @property
    def api_engine(self) -> Engine:
        return self.api_db.engine

    def database(self, url: str) -> Database:
        with self._lock:
            found = self._databases.get(url)
            if found is None:
                found = Database(shared.engine(url, connect_timeout=self._timeout))
                self._databases[url] = found
            return found

    @contextmanager
    def api(self) -> Iterator[Session]:
        with self.api_db.session() as session:
            yield session

    @contextmanager
    def cell(self, url: str) -> Iterator[Session]:
        with self.database(url).session() as session:
            yield session

    def cells(self, *, with_cell0: bool = False) -> list[Cell]:
        with self.api() as session:
            return cells_in(session, with_cell0=with_cell0)

    def cell_by_uuid(self, cell_uuid: str) -> Cell:
        for cell in self.cells(with_cell0=True):
            if cell.uuid == cell_uuid:
                return cell
        raise LookupError(f"no cell {cell_uuid}")

    @contextmanager
    def local_cell(self) -> Iterator[Session]:
        """The cell of this process's services and their hosts ([database] connection)."""
        if self.local_url is None:
            raise LookupError("this directory has no local cell")
        with self.cell(self.local_url) as session:
            yield session

    def cell_of(self, instance_uuid: str) -> Cell:
        """The cell an instance lives in (remembered); InstanceNotFound before it has one."""
        known = self.cache.get(instance_uuid)
        if known is not None:
            return known
        with self.api() as session:
            mapped = mapping_of(session, instance_uuid)
        if mapped is None or mapped.cell is None:
            raise InstanceNotFound(instance_id=instance_uuid)
        self.cache.remember(instance_uuid, mapped.cell)
        return mapped.cell

    def remember(self, instance_uuid: str, cell: Cell) -> None:
        """``cell`` is where the instance lives (its mapping says so now)."""
        self.cache.remember(instance_uuid, cell)

    def forget(self, instance_uuid: str) -> None:
        self.cache.forget(instance_uuid)

    @contextmanager
    def instance_cell(self, instance_uuid: str) -> Iterator[Session]:
        """A session on the instance's cell; InstanceNotFound there forgets the cell."""
        try:
            with self.cell(self.cell_of(instance_uuid).url) as session:
                yield session
        except InstanceNotFound:
            self.forget(instance_uuid)
            raise

    def host_cells(self) -> dict[str, str]:
        """host -> the uuid of the cell its host mapping names."""
        with self.api() as session:
            rows = session.execute(
                sa.select(HostMapping.host, CellMapping.uuid).join(
                    CellMapping, HostMapping.cell_id == CellMapping.id
                )
            )
            return {host: cell for host, cell in rows}

    def dispose(self) -> None:
        """Close the pooled connections and forget the cached cells.

        The directory stays usable (the next session opens a new connection):
        in the all-in-one, the conductor stopping must not break the API.
        """
        with self._lock:
            for found in self._databases.values():
                found.engine.dispose()
        self.cache.clear()


_SHARED_LOCK = threading.Lock()
_SHARED: weakref.WeakValueDictionary[tuple[str, str], CellDirectory] = weakref.WeakValueDictionary()
