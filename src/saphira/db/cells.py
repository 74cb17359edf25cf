"""Cells v2 as library calls: what nova-manage's api_db, db and cell_v2
commands do, for ``saphira-manage`` and for the first start of ``saphira up``.

Nothing here prints. Failures are SaphiraError subclasses whose message is one
line with any password masked; results are plain dataclasses.
"""

from __future__ import annotations

import dataclasses

import sqlalchemy as sa
from oslo_config import cfg

from saphira.db import migration
from saphira.db.api import connect
from saphira.db.api.cells import (
    CELL0_TRANSPORT_URL,
    CELL0_UUID,
    Cell,
    CellExists,
    CellHasHosts,
    CellHasInstances,
    CellNotFound,
    create_cell,
    delete_cell,
    find_cell,
    get_cell,
    list_cells,
    map_cell0,
    update_cell,
)
from saphira.db.api.connect import api_url, cell0_url, cell_url
from saphira.db.api.hosts import (
    COMPUTE_BINARY,
    HostInfo,
    HostMappingExists,
    discover_hosts,
    list_hosts,
)
from saphira.db.api.models import CellMapping


@dataclasses.dataclass(frozen=True)
class SyncResult:
    """One database a sync touched, and the revision it is at now."""

    url: str
    revision: str | None
    is_cell0: bool = False


def _sync(kind: str, url: str, conf: cfg.ConfigOpts, is_cell0: bool = False) -> SyncResult:
    with connect.engine_for(url, conf) as engine:
        migration.upgrade(kind, engine)
        return SyncResult(url, migration.current(kind, engine), is_cell0)


def _version(kind: str, url: str, conf: cfg.ConfigOpts) -> str | None:
    with connect.engine_for(url, conf) as engine:
        return migration.current(kind, engine)


def api_db_sync(conf: cfg.ConfigOpts) -> SyncResult:
    """Create or upgrade the API database's tables."""
    return _sync("api", api_url(conf), conf)


def api_db_version(conf: cfg.ConfigOpts) -> str | None:
    return _version("api", api_url(conf), conf)


def _cell0_connection(conf: cfg.ConfigOpts) -> str | None:
    """cell0's URL from its mapping, or None before map_cell0 has run."""
    with connect.session_for("api", api_url(conf), conf) as session:
        query = sa.select(CellMapping.database_connection).filter_by(uuid=CELL0_UUID)
        return session.scalars(query).one_or_none()


def db_sync(conf: cfg.ConfigOpts, local_cell: bool = False) -> list[SyncResult]:
    """Sync cell0 (when mapped) and then [database] connection, as Nova does.

    ``local_cell`` syncs only [database] connection and never reads the API
    database, for a cell that has no access to it.
    """
    results: list[SyncResult] = []
    if not local_cell:
        cell0 = _cell0_connection(conf)
        if cell0 is not None:
            results.append(_sync("cell", cell0, conf, is_cell0=True))
    local = cell_url(conf)
    if all(result.url != local for result in results):
        results.append(_sync("cell", local, conf))
    return results


def db_version(conf: cfg.ConfigOpts) -> str | None:
    return _version("cell", cell_url(conf), conf)


__all__ = [
    "CELL0_TRANSPORT_URL",
    "CELL0_UUID",
    "COMPUTE_BINARY",
    "Cell",
    "CellExists",
    "CellHasHosts",
    "CellHasInstances",
    "CellNotFound",
    "HostInfo",
    "HostMappingExists",
    "SyncResult",
    "api_db_sync",
    "api_db_version",
    "api_url",
    "cell0_url",
    "cell_url",
    "create_cell",
    "db_sync",
    "db_version",
    "delete_cell",
    "discover_hosts",
    "find_cell",
    "get_cell",
    "list_cells",
    "list_hosts",
    "map_cell0",
    "update_cell",
]
