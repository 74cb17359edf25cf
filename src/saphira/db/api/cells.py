"""Cell mappings: create, read, update and delete, as nova-manage cell_v2 does.

Every call is idempotent where Nova's intent allows it: mapping cell0 twice or
creating the same cell twice returns the existing mapping instead of failing,
so a first start of the all-in-one cloud can simply run them all again.
"""

from __future__ import annotations

import dataclasses
import uuid as uuidlib

import sqlalchemy as sa
from oslo_config import cfg
from sqlalchemy.orm import Session

from saphira.db.api import connect
from saphira.db.api.models import CellMapping, HostMapping, InstanceMapping
from saphira.exception import Conflict, NotFound, ValidationError

CELL0_UUID = "00000000-0000-0000-0000-000000000000"
# RPC never goes to cell0; this is how the install guide shows its URL.
CELL0_TRANSPORT_URL = "none:/"


class CellExists(Conflict):
    """Another cell already has this name or these URLs (nova-manage exits 2)."""


class CellNotFound(NotFound):
    msg_fmt = "Cell with uuid %(uuid)s was not found."


class CellHasHosts(Conflict):
    """Hosts are still mapped to the cell (nova-manage delete_cell exits 2)."""


class CellHasInstances(Conflict):
    """Instances are still mapped to the cell (nova-manage delete_cell exits 3)."""


@dataclasses.dataclass(frozen=True)
class Cell:
    """A cell as its mapping names it: the one value for a cell, in every service.

    ``url`` is the mapping's database connection (Nova's ``database_connection``).
    """

    id: int
    uuid: str
    name: str
    url: str
    transport_url: str
    disabled: bool

    @property
    def is_cell0(self) -> bool:
        return self.uuid == CELL0_UUID

    @classmethod
    def of(cls, row: CellMapping) -> Cell:
        name = row.name or ""
        return cls(row.id, row.uuid, name, row.database_connection, row.transport_url, row.disabled)


def _get(session: Session, cell_uuid: str) -> CellMapping:
    row = session.scalars(sa.select(CellMapping).filter_by(uuid=cell_uuid)).one_or_none()
    if row is None:
        raise CellNotFound(uuid=cell_uuid)
    return row


def map_cell0(conf: cfg.ConfigOpts, database_connection: str | None = None) -> tuple[Cell, bool]:
    """Map cell0; returns (cell, created). An existing cell0 is left as it is."""
    url = database_connection or connect.cell0_url(connect.cell_url(conf))
    with connect.session_for("api", connect.api_url(conf), conf) as session:
        row = session.scalars(sa.select(CellMapping).filter_by(uuid=CELL0_UUID)).one_or_none()
        if row is not None:
            return Cell.of(row), False
        row = CellMapping(
            uuid=CELL0_UUID, name="cell0", transport_url=CELL0_TRANSPORT_URL,
            database_connection=url, disabled=False,
        )  # fmt: skip
        session.add(row)
        session.flush()
        return Cell.of(row), True


def _check_unique(
    session: Session, name: str, transport_url: str, database_url: str
) -> Cell | None:
    """The same cell again is returned; a clash with another cell is an error."""
    for row in session.scalars(sa.select(CellMapping)):
        same_urls = row.transport_url == transport_url and row.database_connection == database_url
        if same_urls and row.name == name:
            return Cell.of(row)
        if same_urls:
            raise CellExists(
                "The specified transport_url and/or database_connection combination "
                f"already exists for another cell with uuid {row.uuid}."
            )
        if name and row.name == name:
            raise CellExists(f"A cell named {name!r} already exists with uuid {row.uuid}.")
    return None


def create_cell(
    conf: cfg.ConfigOpts,
    name: str | None = None,
    transport_url: str | None = None,
    database_connection: str | None = None,
    disabled: bool = False,
) -> tuple[Cell, bool]:
    """Map a cell; returns (cell, created). Defaults come from the config."""
    transport = transport_url or conf.transport_url
    if not transport:
        raise ValidationError(
            "Must specify --transport-url if [DEFAULT]/transport_url is not set "
            "in the configuration file."
        )
    database_url = database_connection or connect.cell_url(conf)
    with connect.session_for("api", connect.api_url(conf), conf) as session:
        existing = _check_unique(session, name or "", transport, database_url)
        if existing is not None:
            return existing, False
        row = CellMapping(
            uuid=str(uuidlib.uuid4()), name=name, transport_url=transport,
            database_connection=database_url, disabled=disabled,
        )  # fmt: skip
        session.add(row)
        session.flush()
        return Cell.of(row), True


def list_cells(conf: cfg.ConfigOpts) -> list[Cell]:
    """Every cell mapping, sorted by name as nova-manage lists them."""
    with connect.session_for("api", connect.api_url(conf), conf) as session:
        rows = session.scalars(sa.select(CellMapping)).all()
        return sorted((Cell.of(row) for row in rows), key=lambda cell: cell.name)


def get_cell(conf: cfg.ConfigOpts, cell_uuid: str) -> Cell:
    with connect.session_for("api", connect.api_url(conf), conf) as session:
        return Cell.of(_get(session, cell_uuid))


def find_cell(conf: cfg.ConfigOpts, name: str) -> Cell | None:
    """The cell with this name, whatever its URLs; None if there is none.

    For callers that must not fail when the configured URLs changed since the
    cell was mapped (create_cell would report that as a conflict).
    """
    with connect.session_for("api", connect.api_url(conf), conf) as session:
        row = session.scalars(sa.select(CellMapping).filter_by(name=name)).first()
        return None if row is None else Cell.of(row)


def update_cell(
    conf: cfg.ConfigOpts,
    cell_uuid: str,
    *,
    name: str | None = None,
    transport_url: str | None = None,
    database_connection: str | None = None,
    disabled: bool | None = None,
) -> Cell:
    """Change the given fields of a cell; cell0 cannot be disabled (as in Nova)."""
    with connect.session_for("api", connect.api_url(conf), conf) as session:
        row = _get(session, cell_uuid)
        if disabled and cell_uuid == CELL0_UUID:
            raise ValidationError("Cell0 cannot be disabled.")
        for field, value in (
            ("name", name),
            ("transport_url", transport_url),
            ("database_connection", database_connection),
            ("disabled", disabled),
        ):
            if value is not None:
                setattr(row, field, value)
        session.flush()
        return Cell.of(row)


def delete_cell(conf: cfg.ConfigOpts, cell_uuid: str) -> None:
    """Delete an empty cell; refuse while hosts or instances are mapped to it."""
    with connect.session_for("api", connect.api_url(conf), conf) as session:
        row = _get(session, cell_uuid)
        if session.scalars(sa.select(HostMapping.id).filter_by(cell_id=row.id)).first():
            raise CellHasHosts(f"There are existing hosts mapped to cell with uuid {cell_uuid}.")
        instance = sa.select(InstanceMapping.id).filter_by(cell_id=row.id)
        if session.scalars(instance).first():
            raise CellHasInstances(
                f"There are existing instances mapped to cell with uuid {cell_uuid}."
            )
        session.delete(row)
