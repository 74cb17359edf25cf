"""Cell mappings as library calls: idempotent, and clear about conflicts."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from oslo_config import cfg
from sqlalchemy.orm import Session

from saphira.db import cells, migration
from saphira.db.api.models import HostMapping, InstanceMapping
from saphira.db.engine import make_engine
from saphira.exception import DatabaseError, ValidationError
from tests.unit.db import helpers

RABBIT = "rabbit://openstack:RABBIT_PASS@controller:5672/"


@pytest.fixture
def synced(conf: cfg.ConfigOpts) -> cfg.ConfigOpts:
    cells.api_db_sync(conf)
    return conf


def test_commands_before_api_db_sync_name_the_fix(conf: cfg.ConfigOpts) -> None:
    with pytest.raises(DatabaseError, match="run 'saphira-manage api_db sync' first"):
        cells.map_cell0(conf)


def test_map_cell0_derives_its_url_and_is_idempotent(synced: cfg.ConfigOpts) -> None:
    cell0, created = cells.map_cell0(synced)
    assert created
    assert cell0.uuid == cells.CELL0_UUID
    assert cell0.name == "cell0"
    assert cell0.transport_url == "none:/"
    assert cell0.url == cells.cell0_url(cells.cell_url(synced))
    again, created = cells.map_cell0(synced, "sqlite:////elsewhere.sqlite")
    assert (again, created) == (cell0, False)


def test_create_cell_uses_configured_urls_and_returns_existing(synced: cfg.ConfigOpts) -> None:
    cell, created = cells.create_cell(synced, "cell1")
    assert created
    assert (cell.transport_url, cell.url) == (RABBIT, cells.cell_url(synced))
    assert cells.create_cell(synced, "cell1") == (cell, False)
    assert [c.uuid for c in cells.list_cells(synced)] == [cell.uuid]


def test_create_cell_conflicts(synced: cfg.ConfigOpts) -> None:
    cell, _ = cells.create_cell(synced, "cell1")
    with pytest.raises(cells.CellExists, match=f"another cell with uuid {cell.uuid}"):
        cells.create_cell(synced, "other-name")
    with pytest.raises(cells.CellExists, match="named 'cell1' already exists"):
        cells.create_cell(synced, "cell1", database_connection="sqlite:////x/other.sqlite")


def test_find_cell_ignores_changed_urls(synced: cfg.ConfigOpts) -> None:
    cell, _ = cells.create_cell(synced, "cell1")
    synced.set_override("transport_url", "rabbit://other@mq//")
    assert cells.find_cell(synced, "cell1") == cell
    assert cells.find_cell(synced, "cell9") is None


def test_create_cell_without_transport_url(synced: cfg.ConfigOpts) -> None:
    synced.set_override("transport_url", "")
    with pytest.raises(ValidationError, match="--transport-url"):
        cells.create_cell(synced, "cell1")


def test_list_cells_sorts_by_name(synced: cfg.ConfigOpts) -> None:
    cells.create_cell(synced, "zeta", database_connection="sqlite:////z.sqlite")
    cells.map_cell0(synced)
    cells.create_cell(synced, "alpha", database_connection="sqlite:////a.sqlite", disabled=True)
    listed = cells.list_cells(synced)
    assert [(c.name, c.disabled) for c in listed] == [
        ("alpha", True),
        ("cell0", False),
        ("zeta", False),
    ]


def test_update_cell(synced: cfg.ConfigOpts) -> None:
    cell, _ = cells.create_cell(synced, "cell1")
    updated = cells.update_cell(synced, cell.uuid, name="renamed", disabled=True)
    assert (updated.name, updated.disabled, updated.transport_url) == ("renamed", True, RABBIT)
    assert cells.get_cell(synced, cell.uuid) == updated
    cells.map_cell0(synced)
    with pytest.raises(ValidationError, match="Cell0 cannot be disabled"):
        cells.update_cell(synced, cells.CELL0_UUID, disabled=True)


def _add_mapping(conf: cfg.ConfigOpts, row: HostMapping | InstanceMapping) -> None:
    engine = make_engine(cells.api_url(conf))
    with Session(engine) as session, session.begin():
        session.add(row)
    engine.dispose()


def _cell_id(conf: cfg.ConfigOpts, cell_uuid: str) -> int:
    engine = make_engine(cells.api_url(conf))
    with engine.connect() as conn:
        query = sa.text("SELECT id FROM cell_mappings WHERE uuid = :u")
        cell_id: int = conn.execute(query, {"u": cell_uuid}).scalar_one()
    engine.dispose()
    return cell_id


def test_delete_cell_refuses_while_in_use(synced: cfg.ConfigOpts) -> None:
    cell, _ = cells.create_cell(synced, "cell1")
    cell_id = _cell_id(synced, cell.uuid)
    _add_mapping(synced, InstanceMapping(instance_uuid="i" * 36, cell_id=cell_id, project_id="p"))
    with pytest.raises(cells.CellHasInstances):
        cells.delete_cell(synced, cell.uuid)
    _add_mapping(synced, HostMapping(host="compute1", cell_id=cell_id))
    with pytest.raises(cells.CellHasHosts):
        cells.delete_cell(synced, cell.uuid)


def test_delete_cell(synced: cfg.ConfigOpts) -> None:
    cell, _ = cells.create_cell(synced, "cell1")
    cells.delete_cell(synced, cell.uuid)
    assert cells.list_cells(synced) == []
    with pytest.raises(cells.CellNotFound, match=cell.uuid):
        cells.delete_cell(synced, cell.uuid)


def test_db_sync_syncs_cell0_and_the_local_cell(synced: cfg.ConfigOpts) -> None:
    only_local = cells.db_sync(synced)
    assert [(r.url, r.is_cell0) for r in only_local] == [(cells.cell_url(synced), False)]
    cell0, _ = cells.map_cell0(synced)
    results = cells.db_sync(synced)
    assert [(r.url, r.is_cell0) for r in results] == [
        (cell0.url, True),
        (cells.cell_url(synced), False),
    ]
    assert {r.revision for r in results} == {migration.head("cell")}
    assert cells.db_version(synced) == migration.head("cell")
    assert helpers.snapshot(cell0.url)["compute_nodes"] == []


def test_local_cell_sync_never_reads_the_api_database(conf: cfg.ConfigOpts) -> None:
    # The API database was never synced: only --local_cell can succeed.
    assert [r.url for r in cells.db_sync(conf, local_cell=True)] == [cells.cell_url(conf)]
    assert cells.api_db_version(conf) is None
