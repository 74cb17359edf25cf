"""Fresh databases on the real PostgreSQL and MariaDB servers, dropped afterwards."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from tests.environment import server_url

BACKENDS = {"postgresql": "SAPHIRA_TEST_POSTGRESQL", "mariadb": "SAPHIRA_TEST_MARIADB"}

CreateDatabase = Callable[[str], str]


def _server_engine(base: str) -> sa.Engine:
    url = make_url(base)
    if url.get_backend_name() == "postgresql":
        url = url.set(database="postgres")
    return sa.create_engine(url, isolation_level="AUTOCOMMIT")


def _quote(engine: sa.Engine, name: str) -> str:
    return engine.dialect.identifier_preparer.quote_identifier(name)


@pytest.fixture(params=sorted(BACKENDS))
def server(request: pytest.FixtureRequest) -> str:
    """The base URL (no database) of one real server, or a clean skip."""
    base = server_url(BACKENDS[request.param])
    return base


@pytest.fixture
def prefix() -> str:
    return f"saphira_{uuid.uuid4().hex[:10]}"


@pytest.fixture
def create_database(server: str) -> Iterator[CreateDatabase]:
    """create_database(name) -> URL; every database made is dropped at the end."""
    engine = _server_engine(server)
    made: list[str] = []

    def create(name: str) -> str:
        with engine.connect() as conn:
            conn.execute(sa.text(f"CREATE DATABASE {_quote(engine, name)}"))
        made.append(name)
        return make_url(server).set(database=name).render_as_string(hide_password=False)

    yield create
    force = " WITH (FORCE)" if engine.dialect.name == "postgresql" else ""
    with engine.connect() as conn:
        for name in made:
            conn.execute(sa.text(f"DROP DATABASE IF EXISTS {_quote(engine, name)}{force}"))
    engine.dispose()
