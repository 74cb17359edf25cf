"""`saphira up` registers the tiny test image and its flavor on first start, once.

The image is really built (from the cached Debian packages) by `saphira up`
itself, in its own state: this test leaves the session's shared build
(tests/image_cache.py) out, unlike the other clouds that pass ``--test-image``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import image_cache
from tests.environment import IMAGE_BUILD_TOOLS, require_tools
from tests.functional.cloud import start_cloud

pytestmark = pytest.mark.functional


@pytest.fixture(autouse=True)
def _build_tools() -> None:
    require_tools(*IMAGE_BUILD_TOOLS)


def test_first_start_registers_image_and_flavor_and_a_restart_adds_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(image_cache.VARIABLE, raising=False)
    cloud = start_cloud(str(tmp_path), ["--test-image"])
    try:
        images = cloud.openstack("image", "list", "--long", "-f", "json")
        tiny = [image for image in images if image["Name"] == "saphira-tiny"]
        assert len(tiny) == 1, cloud.log()
        assert (tiny[0]["Disk Format"], tiny[0]["Container Format"]) == ("qcow2", "bare")
        shown = cloud.openstack("image", "show", "saphira-tiny", "-f", "json")
        assert (shown["status"], shown["visibility"]) == ("active", "public")
        assert shown["properties"]["hw_disk_bus"] == "virtio"
        flavor = cloud.openstack("flavor", "show", "saphira.tiny", "-f", "json")
        assert (flavor["vcpus"], flavor["ram"], flavor["disk"]) == (1, 128, 1)
        assert flavor["os-flavor-access:is_public"] is True
        assert f"registered image saphira-tiny ({tiny[0]['ID']})" in cloud.log()
        assert cloud.stop() == 0
        cloud.start()
        again = cloud.openstack("image", "list", "-f", "json")
        assert [i["ID"] for i in again if i["Name"] == "saphira-tiny"] == [tiny[0]["ID"]]
        flavors = cloud.openstack("flavor", "list", "--all", "-f", "json")
        assert [f["ID"] for f in flavors if f["Name"] == "saphira.tiny"] == [flavor["id"]]
        assert cloud.log().count("registered image saphira-tiny") == 1
    finally:
        if cloud.proc is not None and cloud.proc.poll() is None:
            assert cloud.stop() == 0, cloud.log()
        cloud.kill()
