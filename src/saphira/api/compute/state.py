"""What the compute API holds for its lifetime: engines, policy, quota defaults,
and where its neighbours are.

Cell database engines are opened on first use and kept, one per connection
URL, so listing services or hypervisors does not reconnect per request.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import sqlalchemy as sa
from oslo_config import cfg
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from saphira.api.compute.backend import RpcBackend, ServerBackend
from saphira.clients.endpoints import service_url
from saphira.clients.image import CallerImages, Images
from saphira.db.api import connect
from saphira.db.api.cells import CELL0_UUID
from saphira.db.api.models import CellMapping
from saphira.db.api.quota import QuotaEngine
from saphira.db.engine import make_engine
from saphira.policy import Enforcer


@dataclass(frozen=True)
class CellRef:
    uuid: str
    name: str
    url: str


@dataclass
class ComputeState:
    conf: cfg.ConfigOpts
    api_engine: Engine
    enforcer: Enforcer
    quota: QuotaEngine
    # The conductor/compute bus, the image service and the network service's URL
    # (tests swap these in; the network service is asked with the caller's token).
    backend: ServerBackend | None = None
    images: Images | None = None
    network_url: str | None = None
    _cells: dict[str, Engine] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> ComputeState:
        engine = make_engine(connect.api_url(conf), connect_timeout=conf.database.connect_timeout)
        return cls(
            conf, engine, Enforcer(conf), QuotaEngine.from_conf(conf),
            backend=RpcBackend(conf), images=CallerImages.from_conf(conf),
            network_url=service_url(conf, "neutron", "network"),
        )  # fmt: skip

    @property
    def servers(self) -> ServerBackend:
        assert self.backend is not None, "no server backend configured"
        return self.backend

    @property
    def image_service(self) -> Images:
        assert self.images is not None, "no image service configured"
        return self.images

    def cells(self, session: Session, *, with_cell0: bool = False) -> list[CellRef]:
        rows = session.scalars(sa.select(CellMapping).order_by(CellMapping.id)).all()
        return [
            CellRef(row.uuid, row.name or "", row.database_connection)
            for row in rows
            if with_cell0 or row.uuid != CELL0_UUID
        ]

    def cell_engine(self, url: str) -> Engine:
        with self._lock:
            engine = self._cells.get(url)
            if engine is None:
                engine = make_engine(url, connect_timeout=self.conf.database.connect_timeout)
                self._cells[url] = engine
            return engine

    @contextmanager
    def cell_session(self, cell: CellRef) -> Iterator[Session]:
        with Session(self.cell_engine(cell.url)) as session:
            yield session
            session.commit()

    def dispose(self) -> None:
        with self._lock:
            for engine in self._cells.values():
                engine.dispose()
            self._cells.clear()
        self.api_engine.dispose()
