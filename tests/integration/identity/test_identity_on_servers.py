"""Identity schema, bootstrap and tokens on real PostgreSQL and MariaDB."""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from oslo_config import cfg

import saphira.conf
from saphira.api.identity import build_app
from saphira.db import migration
from saphira.db.identity import sync
from saphira.db.identity.models import Base, User
from saphira.identity.backend import IdentityBackend
from saphira.identity.bootstrap import ServiceEndpoints, bootstrap
from tests.wsgi import Client

pytestmark = pytest.mark.integration

AUTH: dict[str, Any] = {
    "auth": {
        "identity": {
            "methods": ["password"],
            "password": {
                "user": {"name": "admin", "domain": {"name": "Default"}, "password": "pw"}
            },
        },
        "scope": {"project": {"name": "admin", "domain": {"id": "default"}}},
    }
}


@pytest.fixture
def backend(database_url: str, tmp_path: Path) -> Iterator[IdentityBackend]:
    conf = saphira.conf.load(
        overrides={
            "DEFAULT": {"state_path": str(tmp_path)},
            "identity": {"password_hash_cost": 4},
            "identity_database": {"connection": database_url},
        }
    )
    service = IdentityBackend.from_conf(conf)
    service.keys.setup()
    yield service
    service.engine.dispose()


def test_sync_is_idempotent_and_matches_models(backend: IdentityBackend) -> None:
    sync(backend.engine)
    sync(backend.engine)
    assert migration.current("identity", backend.engine) == migration.head("identity")
    with backend.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []


def test_bootstrap_tokens_and_conflicts(backend: IdentityBackend, tmp_path: Path) -> None:
    sync(backend.engine)
    urls = {"identity": ServiceEndpoints("http://a/v3", "http://a/v3", "http://a/v3")}
    first = bootstrap(backend, password="pw", endpoints=urls)
    again = bootstrap(backend, password="pw", endpoints=urls)
    assert first == again
    conf = saphira.conf.load(
        overrides={
            "DEFAULT": {"state_path": str(tmp_path)},
            "identity_database": {"connection": backend.engine.url.render_as_string(False)},
        }
    )
    client = Client(build_app(conf, backend))
    issued = client.post("/v3/auth/tokens", json=AUTH)
    assert issued.status_code == 201
    token = issued.headers["X-Subject-Token"]
    headers = {"X-Auth-Token": token}
    body = {"project": {"name": "p-" + "x" * 60}}
    assert client.post("/v3/projects", json=body, headers=headers).status_code == 201
    duplicate = client.post("/v3/projects", json=body, headers=headers)
    assert duplicate.status_code == 409
    # Revoking the user's old tokens must not catch a token issued right after (µs times).
    user = client.get(f"/v3/users/{first.user_id}", headers=headers).json["user"]
    patch = {"user": {"password": "pw"}}
    assert client.patch(f"/v3/users/{user['id']}", json=patch, headers=headers).status_code == 200
    assert client.get("/v3/projects", headers=headers).status_code == 401
    fresh = client.post("/v3/auth/tokens", json=AUTH).headers["X-Subject-Token"]
    assert client.get("/v3/projects", headers={"X-Auth-Token": fresh}).status_code == 200


def test_nul_bytes_are_4xx_not_500(backend: IdentityBackend, tmp_path: Path) -> None:
    """PostgreSQL refuses NUL in text; that is bad input, never a server error."""
    sync(backend.engine)
    bootstrap(backend, password="pw")
    conf = saphira.conf.load(overrides={"DEFAULT": {"state_path": str(tmp_path)}})
    client = Client(build_app(conf, backend))
    token = client.post("/v3/auth/tokens", json=AUTH).headers["X-Subject-Token"]
    headers = {"X-Auth-Token": token}
    assert client.get("/v3/projects/a%00b", headers=headers).status_code in (400, 404)
    created = client.post("/v3/projects", json={"project": {"name": "a\x00b"}}, headers=headers)
    # MariaDB stores it; PostgreSQL refuses it (bad input, never a 500).
    expected = 400 if backend.engine.dialect.name == "postgresql" else 201
    assert created.status_code == expected, created.get_data(as_text=True)
    login = copy.deepcopy(AUTH)
    login["auth"]["identity"]["password"]["user"]["name"] = "ad\x00min"
    assert client.post("/v3/auth/tokens", json=login).status_code in (400, 401)


def backend_conf(backend: IdentityBackend, tmp_path: Path) -> cfg.ConfigOpts:
    return saphira.conf.load(
        overrides={
            "DEFAULT": {"state_path": str(tmp_path)},
            "identity_database": {"connection": backend.engine.url.render_as_string(False)},
        }
    )


def test_lockout_counts_and_expires_on_the_server(backend: IdentityBackend, tmp_path: Path) -> None:
    sync(backend.engine)
    bootstrap(backend, password="pw")
    client = Client(build_app(backend_conf(backend, tmp_path), backend))
    wrong = copy.deepcopy(AUTH)
    wrong["auth"]["identity"]["password"]["user"]["password"] = "nope"
    for n in range(10):  # each from its own address: only the per-user count grows
        answer = client.post(
            "/v3/auth/tokens", json=wrong, environ_overrides={"REMOTE_ADDR": f"10.1.0.{n}"}
        )
        assert answer.status_code == 401
    locked = client.post(
        "/v3/auth/tokens", json=AUTH, environ_overrides={"REMOTE_ADDR": "10.1.1.1"}
    )
    assert locked.status_code == 401 and "locked" in locked.json["error"]["message"]
    with backend.session() as session:
        user = session.scalars(sa.select(User).where(User.name == "admin")).one()
        assert user.failed_auth_count == 10
        past = dt.datetime.now(dt.UTC).replace(tzinfo=None) - dt.timedelta(seconds=61)
        user.failed_auth_at = past
    # The lock ran out: a new failure starts the count again, a success clears it.
    again = client.post(
        "/v3/auth/tokens", json=wrong, environ_overrides={"REMOTE_ADDR": "10.1.2.1"}
    )
    assert again.status_code == 401 and "locked" not in again.json["error"]["message"]
    with backend.session() as session:
        assert (
            session.scalars(sa.select(User.failed_auth_count).where(User.name == "admin")).one()
            == 1
        )
    assert (
        client.post(
            "/v3/auth/tokens", json=AUTH, environ_overrides={"REMOTE_ADDR": "10.1.2.2"}
        ).status_code
        == 201
    )
    with backend.session() as session:
        assert (
            session.scalars(sa.select(User.failed_auth_count).where(User.name == "admin")).one()
            is None
        )
