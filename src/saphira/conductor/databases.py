"""The conductor's databases: the process's shared cell directory.

Everything the conductor needs is on ``saphira.db.directory.CellDirectory``:
the API database, each cell's, the local cell ([database] connection, where
its compute hosts report) and the instance -> cell cache, forgotten when a
call finds the instance gone from its cell. In ``saphira up`` the conductor,
the compute API and the scheduler hold the same directory.
"""

from __future__ import annotations

from oslo_config import cfg

from saphira.db.api.cells import Cell
from saphira.db.cell_cache import SIZE as CELL_CACHE_SIZE
from saphira.db.directory import CellDirectory

__all__ = ["CELL_CACHE_SIZE", "Cell", "Databases", "databases"]

Databases = CellDirectory  # the conductor's name for it, kept for its modules' signatures


def databases(conf: cfg.ConfigOpts) -> CellDirectory:
    """This process's directory (``CellDirectory.shared``)."""
    return CellDirectory.shared(conf)
