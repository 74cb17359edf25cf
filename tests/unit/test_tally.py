"""The tally's hooks: committed write transactions, and HTTP requests on the wire."""

from __future__ import annotations

import http.server
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
import sqlalchemy as sa
from sqlalchemy.orm import Session

from saphira.common.tally import Counts, Tally, count_http, count_writes
from saphira.db.engine import make_engine
from saphira.db.transactions import Database


def test_only_committed_transactions_that_wrote_are_write_transactions(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/t.sqlite")
    tally = Tally()
    count_writes(engine, tally)
    with engine.begin() as conn:  # DDL writes no row
        conn.execute(sa.text("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)"))
        conn.execute(sa.text("CREATE TABLE u (id INTEGER PRIMARY KEY)"))
    database = Database(engine)
    with database.writer() as session:
        session.execute(sa.text("INSERT INTO t (v) VALUES ('a')"))
        session.execute(sa.text("INSERT INTO t (v) VALUES ('b')"))
        session.execute(sa.text('INSERT OR REPLACE INTO "u" (id) VALUES (1)'))
    with database.reader() as session:
        session.execute(sa.text("SELECT * FROM t")).all()
    with Session(engine) as session:  # a read that commits writes nothing
        session.execute(sa.text("SELECT count(*) FROM t")).scalar()
        session.commit()
    with Session(engine) as session:
        session.execute(sa.text("  update t SET v = 'c'"))
        session.commit()
    with pytest.raises(RuntimeError), database.writer() as session:
        session.execute(sa.text("DELETE FROM t"))
        raise RuntimeError("rolled back")
    assert tally.read() == Counts(write_transactions=2, write_rollbacks=1)
    assert tally.details() == {
        "write_transactions t u": 1,
        "write_transactions t": 1,
        "write_rollbacks t": 1,
    }
    engine.dispose()


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path.startswith("/old"):
            self.send_response(302)
            self.send_header("Location", "/new")
        else:
            self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def base_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=30)


class _Adapter(requests.adapters.HTTPAdapter):
    """requests' own adapter, under a name of its own so the hook stays in this test."""


def test_every_request_on_the_wire_is_counted_a_redirect_twice(base_url: str) -> None:
    tally = Tally()
    count_http(_Adapter, tally)
    with requests.Session() as http:
        http.mount("http://", _Adapter())
        assert http.get(f"{base_url}/new", timeout=30).status_code == 200
        assert http.get(f"{base_url}/old?x=1", timeout=30).status_code == 200
        assert http.get(f"{base_url}/v2/images/{uuid.uuid4()}", timeout=30).status_code == 200
    assert tally.read() == Counts(http_requests=4)
    port = base_url.rsplit(":", 1)[1]
    assert tally.details() == {
        f"http_requests GET :{port}/new": 2,
        f"http_requests GET :{port}/old": 1,
        f"http_requests GET :{port}/v2/images/{{id}}": 1,
    }


def test_counts_subtract_field_by_field() -> None:
    later = Counts(rpc_calls=11, rpc_casts=4, http_requests=7, write_transactions=13)
    assert later - Counts(rpc_calls=1, http_requests=2) == Counts(11 - 1, 4, 0, 5, 13, 0)
