from __future__ import annotations

from pathlib import Path

import pytest
from oslo_config import cfg

from saphira import conf as saphira_conf


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
