"""`saphira up` on real PostgreSQL and MariaDB: first start, restart, real clients."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from saphira.conf.opts import list_opts
from tests.environment import server_url
from tests.functional.clients import sdk, validate
from tests.functional.cloud import start_cloud

pytestmark = pytest.mark.integration
BACKENDS = {"postgresql": "SAPHIRA_TEST_POSTGRESQL", "mariadb": "SAPHIRA_TEST_MARIADB"}
# Every database the cloud keeps: each option group with a `connection` key.
DATABASE_GROUPS = sorted(
    group.name for group, opts in list_opts() if group and any(o.name == "connection" for o in opts)
)


def _admin_engine(base: str) -> sa.Engine:
    url = make_url(base)
    if url.get_backend_name() == "postgresql":
        url = url.set(database="postgres")
    return sa.create_engine(url, isolation_level="AUTOCOMMIT")


@pytest.fixture(params=sorted(BACKENDS))
def databases(request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    """URLs of a fresh database per group (and the cell's _cell0); dropped afterwards."""
    base = server_url(BACKENDS[request.param])
    engine = _admin_engine(base)
    quote = engine.dialect.identifier_preparer.quote_identifier
    prefix = f"saphira_{uuid.uuid4().hex[:10]}"
    names = {group: f"{prefix}_{group}" for group in DATABASE_GROUPS}
    names["database"] = prefix
    made = [*names.values(), f"{prefix}_cell0"]  # nova's cell0 name is derived from the cell's
    with engine.connect() as conn:
        for name in made:
            conn.execute(sa.text(f"CREATE DATABASE {quote(name)}"))
    yield {
        kind: make_url(base).set(database=name).render_as_string(hide_password=False)
        for kind, name in names.items()
    }
    force = " WITH (FORCE)" if engine.dialect.name == "postgresql" else ""
    with engine.connect() as conn:
        for name in made:
            conn.execute(sa.text(f"DROP DATABASE IF EXISTS {quote(name)}{force}"))
    engine.dispose()


def test_up_runs_and_restarts_on_a_database_server(
    databases: dict[str, str], tmp_path: Path
) -> None:
    nova_conf = tmp_path / "nova.conf"
    nova_conf.write_text(
        "".join(f"[{group}]\nconnection = {url}\n" for group, url in databases.items())
    )
    cloud = start_cloud(str(tmp_path), ["--config-file", str(nova_conf)])
    try:
        admin = sdk(cloud.clouds_yaml, "admin")
        names = {project.name for project in admin.identity.projects()}
        assert {"admin", "demo", "service"} <= names
        token = admin.auth_token
        assert cloud.stop() == 0
        cloud.start()  # every first-start step again, on data that is already there
        again = sdk(cloud.clouds_yaml, "admin")
        assert validate(cloud.url("identity"), again.auth_token, token).status_code == 200
        assert not list(cloud.state_dir.glob("*.sqlite"))  # nothing fell back to SQLite
    finally:
        if cloud.proc is not None and cloud.proc.poll() is None:
            assert cloud.stop() == 0
        cloud.kill()
