"""saphira.db.directory: the cells the API, conductor and scheduler share, and
transactions.Database.session(), the one way they open a session."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from saphira.db import migration
from saphira.db.api.cells import CELL0_UUID
from saphira.db.api.models import CellMapping, HostMapping, InstanceMapping
from saphira.db.directory import CellDirectory, Mapped, mapping_of
from saphira.exception import InstanceNotFound


@pytest.fixture
def directory(tmp_path: Path) -> Iterator[CellDirectory]:
    made = CellDirectory(f"sqlite:///{tmp_path / 'api.sqlite'}")
    migration.upgrade("api", made.api_engine)
    with made.api() as session:
        for cell_uuid, name in ((CELL0_UUID, "cell0"), (str(uuid.uuid4()), "cell1")):
            url = f"sqlite:///{tmp_path / name}.sqlite"
            session.add(CellMapping(uuid=cell_uuid, name=name, transport_url="none:/",
                                    database_connection=url))  # fmt: skip
    try:
        yield made
    finally:
        made.dispose()


def test_cells_come_in_mapping_order_cell0_only_when_asked(directory: CellDirectory) -> None:
    assert [c.name for c in directory.cells()] == ["cell1"]
    everything = directory.cells(with_cell0=True)
    assert [(c.name, c.is_cell0) for c in everything] == [("cell0", True), ("cell1", False)]
    assert directory.cell_by_uuid(everything[1].uuid) == everything[1]


def test_one_engine_per_url(directory: CellDirectory) -> None:
    cell = directory.cells()[0]
    assert directory.database(cell.url) is directory.database(cell.url)
    assert directory.database(cell.url) is not directory.api_db


def test_an_instance_cell_comes_from_its_mapping(directory: CellDirectory) -> None:
    cell = directory.cells()[0]
    with directory.api() as session:
        session.add(InstanceMapping(instance_uuid="i-placed", project_id="p", cell_id=cell.id))
        session.add(InstanceMapping(instance_uuid="i-building", project_id="p"))
        session.add(HostMapping(host="node1", cell_id=cell.id))
    assert directory.cell_of("i-placed") == cell
    with directory.api() as session:
        assert mapping_of(session, "i-building") == Mapped(None)
        assert mapping_of(session, "i-unknown") is None
    with pytest.raises(InstanceNotFound):
        directory.cell_of("i-building")  # no cell yet
    with pytest.raises(InstanceNotFound):
        directory.cell_of("i-unknown")
    assert directory.host_cells() == {"node1": cell.uuid}


def test_a_session_commits_at_the_end_and_rolls_back_on_error(
    directory: CellDirectory,
) -> None:
    cell = directory.cells()[0]
    with directory.api() as session:
        session.add(HostMapping(host="kept", cell_id=cell.id))
    with pytest.raises(RuntimeError), directory.api() as session:
        session.add(HostMapping(host="dropped", cell_id=cell.id))
        session.flush()
        raise RuntimeError("half-way")
    with directory.api() as session:
        assert list(session.scalars(sa.select(HostMapping.host))) == ["kept"]
