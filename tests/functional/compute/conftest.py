"""A `saphira up` per module, and raw HTTP to its compute API checked against
tempest's own response schemas."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests
from tempest.lib.common.rest_client import RestClient

from tests.functional.clients import sdk
from tests.functional.cloud import Cloud, start_cloud

TIMEOUT = 30


@dataclass
class Api:
    """requests against the compute endpoint with one user's token."""

    base: str
    token: str
    project_id: str
    user_id: str

    def call(self, method: str, path: str, version: str | None = None,
             body: Any = None, **headers: str) -> requests.Response:  # fmt: skip
        sent = {"X-Auth-Token": self.token, **headers}
        if version is not None:
            sent["OpenStack-API-Version"] = f"compute {version}"
        return requests.request(
            method, f"{self.base}{path}", json=body, headers=sent, timeout=TIMEOUT
        )


class _Resp:
    def __init__(self, response: requests.Response) -> None:
        self.status = response.status_code
        self.headers = response.headers


def check(schema: dict[str, Any], response: requests.Response) -> Any:
    """Validate with tempest's own validator; the parsed body."""
    body = response.json() if response.content else None
    RestClient.validate_response(schema, _Resp(response), body)
    return body


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    running = start_cloud(str(tmp_path_factory.mktemp("cloud")))
    yield running
    if running.proc is not None and running.proc.poll() is None:
        assert running.stop() == 0, running.log()


def _api(cloud: Cloud, name: str) -> Api:
    conn = sdk(cloud.clouds_yaml, name)
    token = conn.auth_token
    return Api(cloud.url("compute"), token, conn.current_project_id, conn.current_user_id)


@pytest.fixture(scope="module")
def admin(cloud: Cloud) -> Api:
    return _api(cloud, "admin")


@pytest.fixture(scope="module")
def demo(cloud: Cloud) -> Api:
    return _api(cloud, "demo")
