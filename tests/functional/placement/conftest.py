"""A placement service per test over an in-process identity service."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from saphira.api.auth import LocalValidator
from saphira.api.placement import build_app
from saphira.db.placement import Database, make_placement_engine, sync
from tests.functional.identity.conftest import Identity, start_identity
from tests.wsgi import Client, JsonResponse

LATEST = "placement 1.36"


@dataclass
class Placement:
    identity: Identity
    db: Database
    app: Any
    client: Client
    token: str

    def call(
        self,
        method: str,
        path: str,
        version: str | None = LATEST,
        token: str | None = None,
        **kw: Any,
    ) -> JsonResponse:
        headers = {"X-Auth-Token": token or self.token, **kw.pop("headers", {})}
        if version:
            headers["OpenStack-API-Version"] = version
        return self.client.open(path, method=method, headers=headers, **kw)

    def ok(self, method: str, path: str, status: int = 200, **kw: Any) -> Any:
        response = self.call(method, path, **kw)
        assert response.status_code == status, response.get_data(as_text=True)
        return response.get_json(silent=True)

    def provider(self, name: str, **extra: Any) -> dict[str, Any]:
        body: dict[str, Any] = self.ok("POST", "/resource_providers", json={"name": name, **extra})
        return body

    def inventory(self, uuid: str, **classes: dict[str, Any]) -> dict[str, Any]:
        gen = self.ok("GET", f"/resource_providers/{uuid}")["generation"]
        body = {"resource_provider_generation": gen, "inventories": classes}
        data: dict[str, Any] = self.ok("PUT", f"/resource_providers/{uuid}/inventories", json=body)
        return data


def start_placement(tmp_path: Path) -> Placement:
    identity = start_identity(tmp_path)
    engine = make_placement_engine(identity.conf)
    sync(engine)
    db = Database(engine)
    app = build_app(identity.conf, LocalValidator(identity.backend), db)
    return Placement(identity, db, app, Client(app), identity.admin_token())


@pytest.fixture
def placement(tmp_path: Path) -> Iterator[Placement]:
    service = start_placement(tmp_path)
    yield service
    service.db.engine.dispose()
    service.identity.backend.engine.dispose()
