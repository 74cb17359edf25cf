"""discover_hosts maps what compute agents registered, once, with Nova's lines."""

from __future__ import annotations

import pytest
from oslo_config import cfg

from saphira.db import cells
from saphira.exception import DatabaseError
from tests.unit.db import helpers


@pytest.fixture
def cloud(conf: cfg.ConfigOpts) -> cfg.ConfigOpts:
    """The guide's sequence: api_db sync, map_cell0, create_cell, db sync."""
    cells.api_db_sync(conf)
    cells.map_cell0(conf)
    cells.create_cell(conf, "cell1")
    cells.db_sync(conf)
    return conf


def _cell1(conf: cfg.ConfigOpts) -> cells.Cell:
    return next(c for c in cells.list_cells(conf) if c.name == "cell1")


def test_discovers_each_compute_once(cloud: cfg.ConfigOpts) -> None:
    cell1 = _cell1(cloud)
    node = helpers.register_compute(cell1.url, "compute1")
    lines: list[str] = []
    found = cells.discover_hosts(cloud, status=lines.append)
    assert found == [cells.HostInfo("compute1", cell1.uuid, "cell1")]
    assert lines == [
        "Found 2 cell mappings.",
        "Skipping cell0 since it does not contain hosts.",
        f"Getting computes from cell 'cell1': {cell1.uuid}",
        f"Checking host mapping for compute host 'compute1': {node}",
        f"Creating host mapping for compute host 'compute1': {node}",
        f"Found 1 unmapped computes in cell: {cell1.uuid}",
    ]
    assert helpers.mapped_flags(cell1.url) == {"compute1": 1}
    assert cells.discover_hosts(cloud) == []
    assert cells.list_hosts(cloud) == found


def test_a_node_whose_host_is_mapped_is_only_marked(cloud: cfg.ConfigOpts) -> None:
    cell1 = _cell1(cloud)
    helpers.register_compute(cell1.url, "compute1")
    cells.discover_hosts(cloud, by_service=True)  # maps the host, not the node
    assert helpers.mapped_flags(cell1.url) == {"compute1": 0}
    lines: list[str] = []
    assert cells.discover_hosts(cloud, cell_uuid=cell1.uuid, status=lines.append) == []
    assert not any(line.startswith("Creating") for line in lines)
    assert lines[0].startswith("Getting computes")  # no "Found N cell mappings" for one cell
    assert helpers.mapped_flags(cell1.url) == {"compute1": 1}


def test_by_service_maps_compute_services_only(cloud: cfg.ConfigOpts) -> None:
    cell1 = _cell1(cloud)
    helpers.register_compute(cell1.url, "compute1")
    helpers.register_compute(cell1.url, "sched1", binary="nova-scheduler")
    lines: list[str] = []
    found = cells.discover_hosts(cloud, by_service=True, status=lines.append)
    assert [h.host for h in found] == ["compute1"]
    assert "Creating host mapping for service compute1" in lines


def test_list_hosts_of_one_cell(cloud: cfg.ConfigOpts) -> None:
    cell1 = _cell1(cloud)
    for host in ("b-host", "a-host"):
        helpers.register_compute(cell1.url, host)
    cells.discover_hosts(cloud)
    assert [h.host for h in cells.list_hosts(cloud, cell1.uuid)] == ["a-host", "b-host"]
    assert cells.list_hosts(cloud, cells.CELL0_UUID) == []
    with pytest.raises(cells.CellNotFound):
        cells.list_hosts(cloud, "no-such-cell")


def test_unsynced_cell_database_names_the_fix(conf: cfg.ConfigOpts) -> None:
    cells.api_db_sync(conf)
    cells.create_cell(conf, "cell1")
    with pytest.raises(DatabaseError, match="run 'saphira-manage db sync' first"):
        cells.discover_hosts(conf)
