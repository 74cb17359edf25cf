"""The conductor's databases: the shared cell directory (``saphira.db.directory``)
plus the cell this conductor serves (a session per RPC call).

An instance's cell is read from the API database once and remembered (an
instance never changes cells); a call that finds no such instance in that
cell forgets it, so a deleted or re-created uuid is looked up again."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from oslo_config import cfg
from sqlalchemy.orm import Session

from saphira.db.api import connect
from saphira.db.api.cells import Cell
from saphira.db.directory import CellDirectory
from saphira.exception import InstanceNotFound

__all__ = ["Cell", "Databases"]

# Instances whose cell is remembered; the oldest is forgotten past this many.
CELL_CACHE_SIZE = 4096


class Databases(CellDirectory):
    def __init__(self, conf: cfg.ConfigOpts) -> None:
        super().__init__(connect.api_url(conf), connect_timeout=conf.database.connect_timeout)
        self.conf = conf
        self._cache_lock = threading.Lock()
        self._cell_of: OrderedDict[str, Cell] = OrderedDict()

    @contextmanager
    def local_cell(self) -> Iterator[Session]:
        """The cell this conductor and its compute hosts belong to ([database] connection)."""
        with self.cell(connect.cell_url(self.conf)) as session:
            yield session

    def cell_of(self, instance_uuid: str) -> Cell:
        """The cell an instance lives in; InstanceNotFound before it has one."""
        with self._cache_lock:
            known = self._cell_of.get(instance_uuid)
        if known is not None:
            return known
        found = super().cell_of(instance_uuid)
        self.remember(instance_uuid, found)
        return found

    def remember(self, instance_uuid: str, cell: Cell) -> None:
        """``cell`` is where the instance lives (its mapping says so now)."""
        with self._cache_lock:
            self._cell_of[instance_uuid] = cell
            while len(self._cell_of) > CELL_CACHE_SIZE:
                self._cell_of.popitem(last=False)

    def forget(self, instance_uuid: str) -> None:
        with self._cache_lock:
            self._cell_of.pop(instance_uuid, None)

    @contextmanager
    def instance_cell(self, instance_uuid: str) -> Iterator[Session]:
        """A session on the instance's cell; InstanceNotFound there forgets the cell."""
        try:
            with self.cell(self.cell_of(instance_uuid).url) as session:
                yield session
        except InstanceNotFound:
            self.forget(instance_uuid)
            raise
