"""A network service per test over an in-process identity service (admin, demo, alt)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from saphira.api.auth import LocalValidator
from saphira.api.network import build_app, build_backend
from saphira.api.network.app import Backend
from saphira.db.network import sync
from saphira.identity.bootstrap import ensure_project_user
from tests.functional.identity.conftest import Identity, start_identity
from tests.wsgi import Client, JsonResponse

ALT_PASSWORD = "alt-secret"


@dataclass
class Neutron:
    identity: Identity
    backend: Backend
    client: Client
    tokens: dict[str, str]
    projects: dict[str, str]

    def call(self, method: str, path: str, user: str = "admin", **kw: Any) -> JsonResponse:
        headers = {"X-Auth-Token": self.tokens[user], **kw.pop("headers", {})}
        return self.client.open(path, method=method, headers=headers, **kw)

    def ok(self, method: str, path: str, status: int = 200, user: str = "admin", **kw: Any) -> Any:
        response = self.call(method, path, user, **kw)
        assert response.status_code == status, response.get_data(as_text=True)
        return response.get_json(silent=True)

    def fault(self, method: str, path: str, status: int, user: str = "admin", **kw: Any) -> str:
        """The NeutronError type of a refused request (its shape checked on the way)."""
        response = self.call(method, path, user, **kw)
        assert response.status_code == status, response.get_data(as_text=True)
        body = response.get_json()
        assert set(body) == {"NeutronError"}, body
        assert set(body["NeutronError"]) == {"type", "message", "detail"}, body
        assert body["NeutronError"]["detail"] == ""
        return str(body["NeutronError"]["type"])

    def create(self, kind: str, user: str = "admin", **attrs: Any) -> dict[str, Any]:
        plural = "security-groups" if kind == "security_group" else f"{kind}s"
        if kind == "security_group_rule":
            plural = "security-group-rules"
        body: dict[str, Any] = self.ok("POST", f"/v2.0/{plural}", 201, user, json={kind: attrs})
        return dict(body[kind])

    def network(self, user: str = "admin", **attrs: Any) -> dict[str, Any]:
        return self.create("network", user, **{"name": "n", **attrs})

    def subnet(
        self, network_id: str, cidr: str, user: str = "admin", **attrs: Any
    ) -> dict[str, Any]:
        version = 6 if ":" in cidr else 4
        return self.create(
            "subnet", user, network_id=network_id, cidr=cidr, ip_version=version, **attrs
        )

    def port(self, network_id: str, user: str = "admin", **attrs: Any) -> dict[str, Any]:
        return self.create("port", user, network_id=network_id, **attrs)


def start_network(tmp_path: Path, **overrides: dict[str, Any]) -> Neutron:
    identity = start_identity(tmp_path)
    for group, values in overrides.items():
        for key, value in values.items():
            identity.conf.set_override(key, value, group=None if group == "DEFAULT" else group)
    alt = ensure_project_user(
        identity.backend, project_name="alt", username="alt", password=ALT_PASSWORD
    )
    backend = build_backend(identity.conf)
    sync(backend.db.engine)
    app = build_app(identity.conf, LocalValidator(identity.backend), backend)
    tokens = {
        "admin": identity.admin_token(),
        "demo": identity.demo_token(),
        "alt": identity.token("alt", ALT_PASSWORD, "alt"),
    }
    projects = {
        "admin": identity.admin.project_id,
        "demo": identity.demo.project_id,
        "alt": alt.project_id,
    }
    return Neutron(identity, backend, Client(app), tokens, projects)


@pytest.fixture
def neutron(tmp_path: Path) -> Iterator[Neutron]:
    service = start_network(tmp_path)
    yield service
    service.backend.db.engine.dispose()
    service.identity.backend.engine.dispose()
