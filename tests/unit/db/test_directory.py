"""saphira.db.directory: the cells the API, conductor and scheduler share (one
directory and one engine per URL in a process, the instance -> cell cache), and
transactions.Database.session(), the one way they open a session."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

import saphira.conf
from saphira.db import migration, shared
from saphira.db.api.cells import CELL0_UUID, Cell
from saphira.db.api.models import CellMapping, HostMapping, InstanceMapping
from saphira.db.cell_cache import CellCache
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


def _placed(directory: CellDirectory, instance_uuid: str) -> Cell:
    cell = directory.cells()[0]
    with directory.api() as session:
        session.add(InstanceMapping(instance_uuid=instance_uuid, project_id="p", cell_id=cell.id))
    return cell


def _unmap(directory: CellDirectory, instance_uuid: str) -> None:
    with directory.api() as session:
        session.execute(sa.delete(InstanceMapping).filter_by(instance_uuid=instance_uuid))


def test_an_instance_cell_is_remembered_until_its_cell_says_not_found(
    directory: CellDirectory,
) -> None:
    cell = _placed(directory, "i-1")
    assert directory.cell_of("i-1") == cell
    _unmap(directory, "i-1")
    assert directory.cell_of("i-1") == cell  # remembered: the API database is not read again
    with pytest.raises(InstanceNotFound), directory.instance_cell("i-1"):
        raise InstanceNotFound(instance_id="i-1")  # what a cell read finds
    with pytest.raises(InstanceNotFound):
        directory.cell_of("i-1")  # forgotten: the mapping is read again, and is gone


def test_other_errors_keep_the_remembered_cell(directory: CellDirectory) -> None:
    cell = _placed(directory, "i-2")
    with pytest.raises(RuntimeError), directory.instance_cell("i-2"):
        raise RuntimeError("not a missing instance")
    _unmap(directory, "i-2")
    assert directory.cell_of("i-2") == cell


def test_the_cache_forgets_the_least_recently_used() -> None:
    cells = CellCache(size=2)
    one = Cell(1, "u1", "cell1", "sqlite:///c1", "none:/", False)
    for instance_uuid in ("a", "b"):
        cells.remember(instance_uuid, one)
    assert cells.get("a") == one  # a is now the most recent
    cells.remember("c", one)
    assert (cells.get("a"), cells.get("b"), cells.get("c"), len(cells)) == (one, None, one, 2)


def test_one_directory_per_process_and_one_engine_per_url(tmp_path: Path) -> None:
    conf = saphira.conf.load(overrides={"DEFAULT": {"state_path": str(tmp_path)}})
    first = CellDirectory.shared(conf)
    assert CellDirectory.shared(conf) is first
    assert CellDirectory.from_conf(conf) is not first  # a test's own directory stays possible
    assert CellDirectory.from_conf(conf).api_engine is first.api_engine
    url = f"sqlite:///{tmp_path / 'x.sqlite'}"
    assert shared.engine(url) is shared.engine(url)
    assert url in shared.urls()
    assert shared.engine("sqlite://") is not shared.engine("sqlite://")  # each its own database


def test_a_disposed_directory_still_opens_sessions(directory: CellDirectory) -> None:
    _placed(directory, "i-3")
    directory.cell_of("i-3")
    directory.dispose()
    assert len(directory.cache) == 0
    with directory.api() as session:
        assert session.scalars(sa.select(InstanceMapping.instance_uuid)).all() == ["i-3"]
