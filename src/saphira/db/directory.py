"""The cell directory: the API database, every cell's database, and the
mappings between them, shared by the compute API, the conductor and the
scheduler.

One pooled engine per URL is kept for the directory's life, and sessions
come from ``saphira.db.transactions.Database`` (one unit of work each), so
the three services find cells and open sessions the same way.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import sqlalchemy as sa
from oslo_config import cfg
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from saphira.db.api import connect
from saphira.db.api.cells import CELL0_UUID, Cell
from saphira.db.api.models import CellMapping, HostMapping, InstanceMapping
from saphira.db.engine import make_engine
from saphira.db.transactions import Database
from saphira.exception import InstanceNotFound


@dataclass(frozen=True)
class Mapped:
    """An instance's mapping: its cell, or None while it is a build request."""

    cell: Cell | None


def mapping_of(session: Session, instance_uuid: str, *, deleted: bool = True) -> Mapped | None:
    """Where the instance mapping puts an instance; None without a mapping (or, with
    ``deleted`` False, with one queued for delete). The one place a cell is found."""
    stmt = sa.select(InstanceMapping).filter_by(instance_uuid=instance_uuid)
    if not deleted:
        stmt = stmt.filter_by(queued_for_delete=False)
    row = session.scalars(stmt).first()
    if row is None:
        return None
    return Mapped(None if row.cell_mapping is None else Cell.of(row.cell_mapping))


def cells_in(session: Session, *, with_cell0: bool = False) -> list[Cell]:
    """Every mapped cell in mapping order, read in the caller's API-DB session."""
    rows = session.scalars(sa.select(CellMapping).order_by(CellMapping.id)).all()
    return [Cell.of(row) for row in rows if with_cell0 or row.uuid != CELL0_UUID]


class CellDirectory:
    """Engines and sessions for the API database and each cell, by URL."""

    def __init__(self, api_url: str, *, connect_timeout: int = 10) -> None:
        self._timeout = connect_timeout
        self._databases: dict[str, Database] = {}
        self._lock = threading.Lock()
        self.api_db = self.database(api_url)

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> CellDirectory:
        return cls(connect.api_url(conf), connect_timeout=conf.database.connect_timeout)

    @property
    def api_engine(self) -> Engine:
        return self.api_db.engine

    def database(self, url: str) -> Database:
        with self._lock:
            found = self._databases.get(url)
            if found is None:
                found = Database(make_engine(url, connect_timeout=self._timeout))
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

    def cell_of(self, instance_uuid: str) -> Cell:
        """The cell an instance lives in; InstanceNotFound before it has one."""
        with self.api() as session:
            mapped = mapping_of(session, instance_uuid)
        if mapped is None or mapped.cell is None:
            raise InstanceNotFound(instance_id=instance_uuid)
        return mapped.cell

    @contextmanager
    def instance_cell(self, instance_uuid: str) -> Iterator[Session]:
        with self.cell(self.cell_of(instance_uuid).url) as session:
            yield session

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
        with self._lock:
            for found in self._databases.values():
                found.engine.dispose()
            self._databases.clear()
