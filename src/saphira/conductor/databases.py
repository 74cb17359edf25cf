"""The conductor's databases: the API database and every cell's, one pooled
engine per URL kept for the service's life (a session per RPC call).

An instance's cell is read from the API database once and remembered (an
instance never changes cells); a call that finds no such instance in that
cell forgets it, so a deleted or re-created uuid is looked up again."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import sqlalchemy as sa
from oslo_config import cfg
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from saphira.db.api import connect
from saphira.db.api.cells import CELL0_UUID
from saphira.db.api.models import CellMapping, InstanceMapping
from saphira.db.engine import make_engine
from saphira.exception import InstanceNotFound

# Instances whose cell is remembered; the oldest is forgotten past this many.
CELL_CACHE_SIZE = 4096


@dataclass(frozen=True)
class CellRef:
    id: int
    uuid: str
    url: str

    @property
    def is_cell0(self) -> bool:
        return self.uuid == CELL0_UUID


class Databases:
    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf
        self._engines: dict[str, Engine] = {}
        self._lock = threading.Lock()
        self._cell_of: OrderedDict[str, CellRef] = OrderedDict()
        self.api_engine = self._engine(connect.api_url(conf))

    def _engine(self, url: str) -> Engine:
        with self._lock:
            engine = self._engines.get(url)
            if engine is None:
                engine = make_engine(url, connect_timeout=self.conf.database.connect_timeout)
                self._engines[url] = engine
            return engine

    @contextmanager
    def api(self) -> Iterator[Session]:
        with Session(self.api_engine) as session:
            yield session
            session.commit()

    @contextmanager
    def cell(self, url: str) -> Iterator[Session]:
        with Session(self._engine(url)) as session:
            yield session
            session.commit()

    @contextmanager
    def local_cell(self) -> Iterator[Session]:
        """The cell this conductor and its compute hosts belong to ([database] connection)."""
        with self.cell(connect.cell_url(self.conf)) as session:
            yield session

    def cells(self, *, with_cell0: bool = False) -> list[CellRef]:
        with self.api() as session:
            rows = session.scalars(sa.select(CellMapping).order_by(CellMapping.id)).all()
            return [
                CellRef(row.id, row.uuid, row.database_connection)
                for row in rows
                if with_cell0 or row.uuid != CELL0_UUID
            ]

    def cell_by_uuid(self, cell_uuid: str) -> CellRef:
        for cell in self.cells(with_cell0=True):
            if cell.uuid == cell_uuid:
                return cell
        raise LookupError(f"no cell {cell_uuid}")

    def cell_of(self, instance_uuid: str) -> CellRef:
        """The cell an instance lives in; InstanceNotFound before it has one."""
        with self._lock:
            known = self._cell_of.get(instance_uuid)
        if known is not None:
            return known
        found = self._mapped_cell(instance_uuid)
        self.remember(instance_uuid, found)
        return found

    def remember(self, instance_uuid: str, cell: CellRef) -> None:
        """``cell`` is where the instance lives (its mapping says so now)."""
        with self._lock:
            self._cell_of[instance_uuid] = cell
            while len(self._cell_of) > CELL_CACHE_SIZE:
                self._cell_of.popitem(last=False)

    def forget(self, instance_uuid: str) -> None:
        with self._lock:
            self._cell_of.pop(instance_uuid, None)

    def _mapped_cell(self, instance_uuid: str) -> CellRef:
        with self.api() as session:
            mapping = session.scalars(
                sa.select(InstanceMapping).filter_by(instance_uuid=instance_uuid)
            ).first()
            if mapping is None or mapping.cell_mapping is None:
                raise InstanceNotFound(instance_id=instance_uuid)
            cell = mapping.cell_mapping
            return CellRef(cell.id, cell.uuid, cell.database_connection)

    @contextmanager
    def instance_cell(self, instance_uuid: str) -> Iterator[Session]:
        """A session on the instance's cell; InstanceNotFound there forgets the cell."""
        try:
            with self.cell(self.cell_of(instance_uuid).url) as session:
                yield session
        except InstanceNotFound:
            self.forget(instance_uuid)
            raise

    def dispose(self) -> None:
        with self._lock:
            for engine in self._engines.values():
                engine.dispose()
            self._engines.clear()
