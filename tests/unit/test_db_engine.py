"""Engines: passwords masked as nova-manage does, failures as one readable line."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from saphira.db import engine as db_engine
from saphira.exception import DatabaseError


def test_mask_url_hides_only_the_password() -> None:
    masked = db_engine.mask_url("mysql+pymysql://nova:NOVA_DBPASS@controller/nova?charset=utf8")
    assert masked == "mysql+pymysql://nova:****@controller/nova?charset=utf8"
    assert db_engine.mask_url("sqlite:////var/lib/x.sqlite") == "sqlite:////var/lib/x.sqlite"


def test_sqlite_engine_uses_wal_and_foreign_keys(tmp_path: Path) -> None:
    engine = db_engine.make_engine(f"sqlite:///{tmp_path}/sub/dir/x.sqlite")
    with engine.connect() as conn:
        assert conn.execute(sa.text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(sa.text("PRAGMA foreign_keys")).scalar() == 1
    engine.dispose()


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("not a url", "invalid database URL"),
        ("nosuchdb://x/y", "unsupported database URL"),
    ],
)
def test_bad_urls_are_one_line_errors(url: str, fragment: str) -> None:
    with pytest.raises(DatabaseError, match=fragment):
        db_engine.make_engine(url)


def test_unreachable_server_is_one_line_with_cause() -> None:
    # Port 1 on loopback refuses at once: nothing listens there.
    engine = db_engine.make_engine("postgresql+psycopg://u:secret@127.0.0.1:1/x", connect_timeout=2)
    with pytest.raises(DatabaseError) as info:
        db_engine.check_connection(engine)
    message = str(info.value)
    assert "\n" not in message
    assert "secret" not in message
    assert "postgresql+psycopg://u:****@127.0.0.1:1/x" in message
    assert "refused" in message.lower() or "connect" in message.lower()
