"""The network races on real PostgreSQL and MariaDB, where transactions truly overlap:
twenty ports on a /28 get thirteen distinct addresses, and first uses make one default group."""

from __future__ import annotations

from pathlib import Path

from saphira.db.engine import make_engine
from saphira.db.network import Database, sync
from tests.functional.network.races import Racer, default_group_race
from tests.functional.network.test_races import check_port_race
from tests.integration.db.conftest import CreateDatabase


def test_ipam_and_default_group_races(
    create_database: CreateDatabase, prefix: str, tmp_path: Path
) -> None:
    engine = make_engine(create_database(f"{prefix}_neutron"))
    try:
        sync(engine)
        racer = Racer(Database(engine), tmp_path)
        check_port_race(racer)
        assert len(default_group_race(racer)) == 1
    finally:
        engine.dispose()
