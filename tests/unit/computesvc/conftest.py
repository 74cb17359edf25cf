"""An API database and one cell, SQLite files in a temporary directory."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from saphira.computesvc import Caller
from saphira.context import RequestContext
from saphira.db import migration
from saphira.db.api import build_requests
from saphira.db.api.models import CellMapping, InstanceMapping
from saphira.db.cell import instances
from saphira.db.directory import CellDirectory
from saphira.objects import Instance
from tests.unit.db.instance_helpers import active, make


@dataclass
class Cloud:
    directory: CellDirectory
    cell_url: str
    cell_id: int

    def caller(self, session: Session, project: str = "p1", *, admin: bool = False) -> Caller:
        context = RequestContext(user_id="u1", project_id=project, admin_by_policy=admin)
        return Caller(context, session, self.directory)

    def building(self, project: str = "p1") -> Instance:
        """A server the conductor has not placed yet: a build request, cell NULL."""
        instance = make(project=project)
        with self.directory.api() as session:
            build_requests.create(session, instance)
            session.add(InstanceMapping(instance_uuid=instance.uuid, project_id=project))
        return instance

    def placed(self, project: str = "p1", host: str | None = "node1") -> Instance:
        """An ACTIVE server in the cell, mapped to it."""
        instance = make(project=project)
        instance.host = host
        instance.launched_at = dt.datetime(2026, 1, 1)
        with self.directory.cell(self.cell_url) as session:
            instance = active(session, instance)
        with self.directory.api() as session:
            session.add(InstanceMapping(instance_uuid=instance.uuid, project_id=project,
                                        cell_id=self.cell_id))  # fmt: skip
        return instance

    def row(self, uuid_: str) -> Instance:
        with self.directory.cell(self.cell_url) as session:
            return instances.get(session, uuid_, read_deleted=True)


@pytest.fixture
def cloud(tmp_path: Path) -> Iterator[Cloud]:
    directory = CellDirectory(f"sqlite:///{tmp_path / 'api.sqlite'}")
    cell_url = f"sqlite:///{tmp_path / 'cell1.sqlite'}"
    migration.upgrade("api", directory.api_engine)
    migration.upgrade("cell", directory.database(cell_url).engine)
    with directory.api() as session:
        row = CellMapping(uuid=str(uuid.uuid4()), name="cell1", transport_url="none:/",
                          database_connection=cell_url)  # fmt: skip
        session.add(row)
        session.flush()
        cell_id = row.id
    try:
        yield Cloud(directory, cell_url, cell_id)
    finally:
        directory.dispose()
