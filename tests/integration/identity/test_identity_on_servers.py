"""Identity schema, bootstrap and tokens on real PostgreSQL and MariaDB."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

import saphira.conf
from saphira.api.identity import build_app
from saphira.db import migration
from saphira.db.identity import sync
from saphira.db.identity.models import Base
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
