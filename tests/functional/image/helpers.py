"""Raw HTTP helpers for the image tests: tokens from clouds.yaml, files of each format."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import requests

from tests.functional.clients import sdk
from tests.functional.cloud import Cloud

TIMEOUT = 120


class ImageClient:
    """requests against the image endpoint with one cloud user's token."""

    def __init__(self, cloud: Cloud, user: str) -> None:
        self.base = cloud.url("image").rstrip("/")
        self.token = sdk(cloud.clouds_yaml, user).auth_token
        self.http = requests.Session()
        self.http.headers["X-Auth-Token"] = self.token

    def __call__(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", TIMEOUT)
        return self.http.request(method, f"{self.base}{path}", **kwargs)

    def create(self, **body: Any) -> dict[str, Any]:
        body.setdefault("container_format", "bare")
        response = self("POST", "/v2/images", json=body)
        assert response.status_code == 201, response.text
        result: dict[str, Any] = response.json()
        return result

    def upload(self, image_id: str, data: Any, **headers: str) -> requests.Response:
        headers.setdefault("Content-Type", "application/octet-stream")
        return self("PUT", f"/v2/images/{image_id}/file", data=data, headers=headers)

    def show(self, image_id: str) -> dict[str, Any]:
        response = self("GET", f"/v2/images/{image_id}")
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()
        return result


def qcow2(path: Path, size: str = "16M", backing: Path | None = None) -> Path:
    cmd = ["qemu-img", "create", "-q", "-f", "qcow2"]
    if backing is not None:
        cmd += ["-b", str(backing), "-F", "raw"]
    subprocess.run([*cmd, str(path), size], check=True)
    return path


def raw(path: Path, size: int = 1024 * 1024) -> Path:
    with open(path, "wb") as handle:
        handle.write(bytes(range(256)) * (size // 256))
    return path


def store_files(cloud: Cloud, store: Path | None = None) -> list[str]:
    """Every file in the image store (the state directory's unless named), temp files included."""
    store = store or cloud.state_dir / "images"
    return sorted(p.name for p in store.iterdir()) if store.exists() else []
