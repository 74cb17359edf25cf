"""Who asks, in which API-database transaction, and where the cells are."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from saphira.context import RequestContext
from saphira.db.api.cells import CELL0_UUID, Cell
from saphira.db.directory import CellDirectory, cells_in


@dataclass
class Caller:
    """One request's view of the databases: its API-DB session and the cell directory."""

    context: RequestContext
    api: Session
    directory: CellDirectory
    # Every cell with cell0, read once per request: an admin's listing asked twice (its
    # rows, its host statuses), each a statement in the API database.
    _cells: list[Cell] | None = field(default=None, init=False, repr=False, compare=False)

    def cells(self, *, with_cell0: bool = False) -> list[Cell]:
        if self._cells is None:
            self._cells = cells_in(self.api, with_cell0=True)
        if with_cell0:
            return list(self._cells)
        return [cell for cell in self._cells if cell.uuid != CELL0_UUID]

    @contextmanager
    def cell(self, cell: Cell) -> Iterator[Session]:
        with self.directory.cell(cell.url) as session:
            yield session

    def sees(self, project_id: str | None) -> bool:
        """Visibility, as Nova: an admin sees every project, others their own."""
        return self.context.is_admin or project_id == self.context.project_id
