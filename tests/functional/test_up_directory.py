"""``saphira up``'s wiring: one cell directory for the compute API, the conductor
and the scheduler, and one engine per database URL, in one process.

Built as ``saphira up`` builds them (``registry`` app factories, ``ControlPlane``)
on a prepared state directory, without listening or starting compute hosts.
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from oslo_config import cfg
from sqlalchemy.engine import Engine

from saphira.api.compute.state import ComputeState
from saphira.db.directory import CellDirectory
from saphira.scheduler.host_manager import HostManager
from saphira.service import firstrun, registry
from saphira.service import up as service_up
from saphira.service.plane import ControlPlane

T = TypeVar("T")


@pytest.fixture
def prepared(tmp_path: Path) -> cfg.ConfigOpts:
    conf, _ = service_up.configure(str(tmp_path / "state"), compute_driver="fake.FakeDriver")
    conf.set_override("password_hash_cost", 4, group="identity")
    firstrun.prepare(conf)
    return conf


@pytest.fixture
def plane(prepared: cfg.ConfigOpts) -> Iterator[ControlPlane]:
    apps = [spec.factory(prepared) for spec in registry.served() if spec.factory is not None]
    running = ControlPlane(prepared, frozenset({"conductor", "scheduler"}))
    running.start()
    try:
        yield running
    finally:
        running.stop()
        del apps


def _live(kind: type[T]) -> list[T]:
    gc.unfreeze()  # the scheduler froze what was made before it started: gc would not list it
    gc.collect()  # engines of one-shot steps (the first start's syncs) that are gone
    return [found for found in gc.get_objects() if type(found) is kind]


def test_api_conductor_and_scheduler_hold_one_directory(
    prepared: cfg.ConfigOpts, plane: ControlPlane
) -> None:
    assert plane.conductor is not None and plane.scheduler is not None
    states = [state for state in _live(ComputeState) if state.conf is prepared]
    assert len(states) == 1
    shared = CellDirectory.shared(prepared)
    assert states[0].directory is shared
    assert plane.conductor.dbs is shared
    hosts = plane.scheduler.manager.host_manager
    assert isinstance(hosts, HostManager) and hosts.directory is shared


def test_one_engine_per_database_url(prepared: cfg.ConfigOpts, plane: ControlPlane) -> None:
    assert plane.conductor is not None
    mine = [str(e.url) for e in _live(Engine) if str(prepared.state_path) in str(e.url)]
    per_url = Counter(mine)
    assert {url.rsplit("/", 1)[-1] for url in per_url} >= {"nova_api.sqlite", "nova.sqlite"}
    assert all(count == 1 for count in per_url.values()), per_url
