"""Product code opens sessions one way: ``saphira.db.transactions.Database``.

Only the places named here with their reason open a connection or a session
themselves.
"""

from __future__ import annotations

import re
from pathlib import Path

import saphira

SRC = Path(saphira.__file__).resolve().parent
AD_HOC = re.compile(r"\bsessionmaker\(|\bSession\(|\.begin\(\)|engine\.connect\(\)")
ALLOWED = {
    "db/transactions.py",  # the one way itself
    "db/migration.py",  # Alembic runs on a Connection
    "db/engine.py",  # check_connection: a ping, no unit of work
    "devtools/testbed/servers.py",  # CREATE/DROP DATABASE: autocommit, outside any transaction
    # Not databases: keystoneauth's HTTP sessions and the dashboard's own login sessions.
    "dashboard/keystone.py",
    "dashboard/connection.py",
    "dashboard/sessions.py",
}


def test_no_session_is_opened_outside_database() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        where = path.relative_to(SRC).as_posix()
        if where in ALLOWED:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if AD_HOC.search(line) and "requests.Session()" not in line:
                found.append(f"{where}:{number}: {line.strip()}")
    assert found == []
