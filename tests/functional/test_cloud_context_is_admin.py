"""context_is_admin is the one rule for "sees every project": in the running
all-in-one, a policy.yaml that narrows it hides a member's private image and
network from an admin of another project, as it hides servers and flavors."""

from __future__ import annotations

from typing import Any

import pytest
import requests
import yaml

from tests.functional.clients import sdk
from tests.functional.cloud import Cloud

pytestmark = pytest.mark.functional

TIMEOUT = 30


def _token(cloud: Cloud, user: str) -> str:
    return str(sdk(cloud.clouds_yaml, user).auth_token)


def _call(cloud: Cloud, service: str, token: str, method: str, path: str,
          body: Any = None) -> requests.Response:  # fmt: skip
    url = f"{cloud.url(service).rstrip('/')}{path}"
    return requests.request(method, url, json=body, headers={"X-Auth-Token": token},
                            timeout=TIMEOUT)  # fmt: skip


def test_narrowing_context_is_admin_narrows_the_network_and_image_apis(cloud: Cloud) -> None:
    demo, admin = _token(cloud, "demo"), _token(cloud, "admin")
    image = _call(cloud, "image", demo, "POST", "/v2/images",
                  {"name": "mine", "disk_format": "raw", "container_format": "bare"})  # fmt: skip
    assert image.status_code == 201, image.text
    network = _call(cloud, "network", demo, "POST", "/v2.0/networks", {"network": {"name": "n"}})
    assert network.status_code == 201, network.text
    image_path = f"/v2/images/{image.json()['id']}"
    network_path = f"/v2.0/networks/{network.json()['network']['id']}"
    assert _call(cloud, "image", admin, "GET", image_path).status_code == 200
    assert _call(cloud, "network", admin, "GET", network_path).status_code == 200

    narrowed = {"context_is_admin": "role:admin and project_id:no-such-project"}
    (cloud.state_dir / "policy.yaml").write_text(yaml.safe_dump(narrowed), encoding="utf-8")
    assert _call(cloud, "image", admin, "GET", image_path).status_code == 404
    assert _call(cloud, "network", admin, "GET", network_path).status_code == 404
    assert _call(cloud, "image", demo, "GET", image_path).status_code == 200
    assert _call(cloud, "network", demo, "GET", network_path).status_code == 200
