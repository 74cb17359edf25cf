"""A server's ``config_drive`` says whether it gets one: asked for on create, forced by
``[DEFAULT] force_config_drive``, or made mandatory by the image."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.functional.compute.servers_harness import IMAGE, FakeImages, Harness, make


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    return make(tmp_path)


def _shown(harness: Harness, **extra: Any) -> str:
    client = harness.client()
    server = {"name": "vm", "imageRef": IMAGE, "flavorRef": "1", **extra}
    made = client.post("/v2.1/servers", json={"server": server})
    assert made.status_code == 202, made.json
    shown = client.get(f"/v2.1/servers/{made.json['server']['id']}")
    return str(shown.json["server"]["config_drive"])


def test_asked_for_or_not(harness: Harness) -> None:
    assert _shown(harness, config_drive=True) == "True"
    assert _shown(harness, config_drive="true") == "True"
    assert _shown(harness) == ""
    assert _shown(harness, config_drive=False) == ""


def test_forced_by_the_operator(harness: Harness) -> None:
    harness.conf.set_override("force_config_drive", True)
    assert _shown(harness) == "True"


def test_mandatory_for_the_image(harness: Harness) -> None:
    images = harness.state.images
    assert isinstance(images, FakeImages)
    images.images[IMAGE]["img_config_drive"] = "mandatory"
    assert _shown(harness, config_drive=False) == "True"
