from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from oslo_config import cfg

from saphira import conf as saphira_conf
from saphira.db.engine import make_engine
from tests.unit.db.instance_helpers import migrated


@pytest.fixture
def conf(tmp_path: Path) -> cfg.ConfigOpts:
    """The embedded default: every database an SQLite file under state_path."""
    return saphira_conf.load(
        overrides={
            "DEFAULT": {
                "state_path": str(tmp_path / "state"),
                "transport_url": "rabbit://openstack:RABBIT_PASS@controller:5672/",
            }
        }
    )


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[sa.Engine]:
    """A cell database in SQLite, migrated to the newest revision."""
    engine = migrated(make_engine(f"sqlite:///{tmp_path}/cell.sqlite"))
    yield engine
    engine.dispose()
