"""The conductor's databases: the shared cell directory (``saphira.db.directory``)
plus the cell this conductor serves (a session per RPC call)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from oslo_config import cfg
from sqlalchemy.orm import Session

from saphira.db.api import connect
from saphira.db.directory import CellDirectory, CellRef

__all__ = ["CellRef", "Databases"]


class Databases(CellDirectory):
    def __init__(self, conf: cfg.ConfigOpts) -> None:
        super().__init__(connect.api_url(conf), connect_timeout=conf.database.connect_timeout)
        self.conf = conf

    @contextmanager
    def local_cell(self) -> Iterator[Session]:
        """The cell this conductor and its compute hosts belong to ([database] connection)."""
        with self.cell(connect.cell_url(self.conf)) as session:
            yield session
