"""Raw JSON calls for the policy matrix's set-up, and password tokens."""

from __future__ import annotations

from typing import Any

import requests

from saphira.service import registry
from tests.functional.cloud import Cloud

TIMEOUT = 60


class Http:
    """Raw JSON calls with one token, failing loudly when a set-up step fails."""

    def __init__(self, roots: dict[str, str], token: str) -> None:
        self.roots, self.token = roots, token

    def __call__(
        self,
        api: str,
        method: str,
        path: str,
        body: Any = None,
        expect: tuple[int, ...] = (200, 201, 202, 204),
        version: str | None = None,
    ) -> Any:
        sent = {"X-Auth-Token": self.token, "OpenStack-API-Version": version or _version(api)}
        response = requests.request(
            method, self.roots[api] + path, json=body, headers=sent, timeout=TIMEOUT
        )
        assert response.status_code in expect, (
            f"{method} {path}: {response.status_code} {response.text}"
        )
        return (
            response.json()
            if response.content and "json" in response.headers.get("Content-Type", "")
            else None
        )


def _version(api: str) -> str:
    return {"compute": "compute 2.64", "placement": "placement latest"}.get(api, "")


def roots(cloud: Cloud) -> dict[str, str]:
    result = {}
    for api in ("identity", "compute", "image", "network", "placement"):
        spec = registry.by_type(api)
        result[api] = f"http://127.0.0.1:{spec.default_port + cloud.port_offset}"
    return result


def password_token(
    root: str, user_id: str, password: str, project_id: str
) -> tuple[str, dict[str, Any]]:
    body = {
        "auth": {
            "identity": {
                "methods": ["password"],
                "password": {"user": {"id": user_id, "password": password}},
            },
            "scope": {"project": {"id": project_id}},
        }
    }
    response = requests.post(f"{root}/v3/auth/tokens", json=body, timeout=TIMEOUT)
    assert response.status_code == 201, response.text
    return response.headers["X-Subject-Token"], response.json()["token"]
