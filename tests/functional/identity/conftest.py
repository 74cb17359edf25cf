"""An identity service per test: tmp state path, synced SQLite, keys, bootstrap."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from oslo_config import cfg

import saphira.conf
from saphira.api.identity import build_app
from saphira.db.identity import sync
from saphira.identity.backend import IdentityBackend
from saphira.identity.bootstrap import (
    BootstrapResult,
    ServiceEndpoints,
    bootstrap,
    ensure_project_user,
)
from tests.wsgi import Client, JsonResponse

ADMIN_PASSWORD = "admin-secret"
DEMO_PASSWORD = "demo-secret"
SERVICES = ("identity", "compute", "image", "network", "placement")


def make_conf(
    state_path: Path, groups: dict[str, dict[str, Any]] | None = None, **identity: Any
) -> cfg.ConfigOpts:
    return saphira.conf.load(
        overrides={
            "DEFAULT": {"state_path": str(state_path)},
            "identity": {"password_hash_cost": 4, **identity},
            **(groups or {}),
        }
    )


def endpoints(base: str = "http://127.0.0.1") -> dict[str, ServiceEndpoints]:
    ports = {"identity": 5000, "compute": 8774, "image": 9292, "network": 9696, "placement": 8778}
    return {
        kind: ServiceEndpoints(f"{base}:{port}", f"{base}:{port}", f"{base}:{port}")
        for kind, port in ports.items()
    }


@dataclass
class Identity:
    conf: cfg.ConfigOpts
    backend: IdentityBackend
    client: Client
    admin: BootstrapResult
    demo: BootstrapResult

    def token(
        self,
        user: str = "admin",
        password: str = ADMIN_PASSWORD,
        project: str | None = "admin",
        scope: Any = None,
    ) -> str:
        body = password_auth(user, password, project=project, scope=scope)
        response = self.client.post("/v3/auth/tokens?nocatalog", json=body)
        assert response.status_code == 201, response.get_data(as_text=True)
        return str(response.headers["X-Subject-Token"])

    def admin_token(self) -> str:
        return self.token()

    def demo_token(self) -> str:
        return self.token("demo", DEMO_PASSWORD, "demo")

    def get(self, path: str, token: str, **kw: Any) -> JsonResponse:
        return self.call("GET", path, token, **kw)

    def call(self, method: str, path: str, token: str, **kw: Any) -> JsonResponse:
        headers = {"X-Auth-Token": token, **kw.pop("headers", {})}
        return self.client.open(path, method=method, headers=headers, **kw)


def password_auth(
    user: str, password: str, project: str | None = None, scope: Any = None
) -> dict[str, Any]:
    auth: dict[str, Any] = {
        "identity": {
            "methods": ["password"],
            "password": {
                "user": {"name": user, "domain": {"name": "Default"}, "password": password}
            },
        }
    }
    if project:
        auth["scope"] = {"project": {"name": project, "domain": {"name": "Default"}}}
    elif scope:
        auth["scope"] = scope
    return {"auth": auth}


def start_identity(
    state_path: Path, groups: dict[str, dict[str, Any]] | None = None, **identity: Any
) -> Identity:
    conf = make_conf(state_path, groups, **identity)
    backend = IdentityBackend.from_conf(conf)
    sync(backend.engine)
    backend.keys.setup()
    admin = bootstrap(backend, password=ADMIN_PASSWORD, endpoints=endpoints())
    demo = ensure_project_user(
        backend, project_name="demo", username="demo", password=DEMO_PASSWORD
    )
    client = Client(build_app(conf, backend))
    return Identity(conf, backend, client, admin, demo)


@pytest.fixture
def identity(tmp_path: Path) -> Iterator[Identity]:
    service = start_identity(tmp_path)
    yield service
    service.backend.engine.dispose()
