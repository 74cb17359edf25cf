"""A fresh database per test on the real PostgreSQL and MariaDB servers."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from tests.environment import server_url

BACKENDS = {"postgresql": "SAPHIRA_TEST_POSTGRESQL", "mariadb": "SAPHIRA_TEST_MARIADB"}


@pytest.fixture(params=sorted(BACKENDS))
def database_url(request: pytest.FixtureRequest) -> Iterator[str]:
    base = server_url(BACKENDS[request.param])
    url = make_url(base)
    admin_url = url.set(database="postgres") if url.get_backend_name() == "postgresql" else url
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    name = f"saphira_{uuid.uuid4().hex[:10]}"
    quoted = admin.dialect.identifier_preparer.quote_identifier(name)
    with admin.connect() as conn:
        conn.execute(sa.text(f"CREATE DATABASE {quoted}"))
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        force = " WITH (FORCE)" if admin.dialect.name == "postgresql" else ""
        with admin.connect() as conn:
            conn.execute(sa.text(f"DROP DATABASE IF EXISTS {quoted}{force}"))
        admin.dispose()
