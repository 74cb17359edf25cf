"""SQLite writers of one file queue in process, and every way a transaction ends frees the file."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlalchemy as sa

from saphira.db import sqlite_writers
from saphira.db.engine import make_engine


def _engine(tmp_path: Path) -> sa.Engine:
    engine = make_engine(f"sqlite:///{tmp_path}/w.sqlite")
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE t (v TEXT)"))
    return engine


def _second_writer_waits_for(end: Callable[[sa.Connection], None], tmp_path: Path) -> list[str]:
    """A holds a write open; B's write must land only after A's ``end``."""
    engine = _engine(tmp_path)
    order: list[str] = []
    first_wrote, b_started = threading.Event(), threading.Event()

    def writer_b() -> None:
        assert first_wrote.wait(10)
        b_started.set()
        with engine.begin() as conn:
            conn.execute(sa.text("INSERT INTO t VALUES ('b')"))
        order.append("b committed")

    thread = threading.Thread(target=writer_b)
    thread.start()
    conn = engine.connect()
    conn.execute(sa.text("INSERT INTO t VALUES ('a')"))
    file_lock = sqlite_writers._lock_for(f"{tmp_path}/w.sqlite")
    assert file_lock is not None and file_lock.lock.locked()  # A holds the file
    first_wrote.set()
    assert b_started.wait(10)
    thread.join(0.3)  # B is queued behind A, not failing with "database is locked"
    order.append("a ends")
    end(conn)
    thread.join(30)
    assert not thread.is_alive()
    assert not file_lock.lock.locked()  # and B released it in turn
    engine.dispose()
    return order


@pytest.mark.parametrize(
    "end",
    [
        lambda conn: (conn.commit(), conn.close()),
        lambda conn: (conn.rollback(), conn.close()),
        lambda conn: conn.close(),  # returning to the pool rolls back
    ],
    ids=["commit", "rollback", "close"],
)
def test_the_next_writer_runs_when_the_first_transaction_ends(
    tmp_path: Path, end: Callable[[sa.Connection], None]
) -> None:
    assert _second_writer_waits_for(end, tmp_path) == ["a ends", "b committed"]


def test_readers_do_not_queue_behind_a_writer(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    writer = engine.connect()
    writer.execute(sa.text("SELECT count(*) FROM t"))
    file_lock = sqlite_writers._lock_for(f"{tmp_path}/w.sqlite")
    assert file_lock is not None and not file_lock.lock.locked()  # a read takes no turn
    writer.execute(sa.text("INSERT INTO t VALUES ('a')"))
    result: list[int] = []
    reader = threading.Thread(
        target=lambda: result.append(
            engine.connect().execute(sa.text("SELECT count(*) FROM t")).scalar_one()
        )
    )
    reader.start()
    reader.join(10)
    assert result == [0]  # WAL: the reader sees the last commit, at once
    writer.rollback()
    writer.close()
    engine.dispose()
