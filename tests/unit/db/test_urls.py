"""Where the databases are: the embedded defaults and Nova's cell0 naming."""

from __future__ import annotations

from pathlib import Path

import pytest
from oslo_config import cfg

from saphira.db import cells
from saphira.exception import DatabaseError


def test_empty_connections_are_sqlite_files_under_state_path(
    conf: cfg.ConfigOpts, tmp_path: Path
) -> None:
    assert cells.api_url(conf) == f"sqlite:///{tmp_path}/state/nova_api.sqlite"
    assert cells.cell_url(conf) == f"sqlite:///{tmp_path}/state/nova.sqlite"


def test_configured_connections_win(conf: cfg.ConfigOpts) -> None:
    conf.set_override("connection", "postgresql+psycopg://n:p@db/nova_api", group="api_database")
    conf.set_override("connection", "mysql+pymysql://n:p@db/nova", group="database")
    assert cells.api_url(conf) == "postgresql+psycopg://n:p@db/nova_api"
    assert cells.cell_url(conf) == "mysql+pymysql://n:p@db/nova"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "mysql+pymysql://nova:NOVA_DBPASS@controller/nova?charset=utf8",
            "mysql+pymysql://nova:NOVA_DBPASS@controller/nova_cell0?charset=utf8",
        ),
        (
            "postgresql+psycopg://nova:pw@10.0.0.1:5432/nova",
            "postgresql+psycopg://nova:pw@10.0.0.1:5432/nova_cell0",
        ),
        ("sqlite:////var/lib/saphira/nova.sqlite", "sqlite:////var/lib/saphira/nova_cell0.sqlite"),
        ("sqlite:///relative/nova", "sqlite:///relative/nova_cell0"),
        # A password with URL-special characters survives the round trip.
        ("mysql+pymysql://nova:p%40ss%2Fw@h/nova", "mysql+pymysql://nova:p%40ss%2Fw@h/nova_cell0"),
    ],
)
def test_cell0_url_suffixes_the_database_name(url: str, expected: str) -> None:
    assert cells.cell0_url(url) == expected


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:", "not a url"])
def test_cell0_url_needs_a_database_name(url: str) -> None:
    with pytest.raises(DatabaseError):
        cells.cell0_url(url)
