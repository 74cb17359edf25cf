"""A real tiny guest on `provider` reads its user data and key from the metadata service:
`saphira up` with libvirt, OVS, dnsmasq, the DHCP namespace's metadata proxy and the
metadata API, driven by the real CLI (`--user-data`, `--key-name`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from saphira.guest_image import READY
from tests.functional.cloud import Cloud
from tests.functional.conftest import ProviderCloud
from tests.functional.test_cloud_libvirt import wait_console

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("libvirt")]
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG0mD2vXr4yQ8sWb1nTz3kLp6hJc9aF5uE7iO0pR2sTq guest@md"
USER_DATA = "#!/bin/sh\necho user-data-through-the-metadata-proxy\n"


@pytest.fixture(scope="module")
def cloud(provider_cloud: ProviderCloud) -> Cloud:
    return provider_cloud.cloud


def test_the_guest_prints_user_data_and_key_from_the_metadata_service(
    cloud: Cloud, tmp_path: Path
) -> None:
    (tmp_path / "key.pub").write_text(KEY)
    (tmp_path / "user-data").write_text(USER_DATA)
    cloud.openstack("keypair", "create", "--public-key", str(tmp_path / "key.pub"), "md-key")
    made: dict[str, Any] = cloud.openstack(
        "server", "create", "--image", "saphira-tiny", "--flavor", "saphira.tiny",
        "--network", "provider", "--user-data", str(tmp_path / "user-data"),
        "--key-name", "md-key", "--wait", "md1", "-f", "json",
    )  # fmt: skip
    assert made["status"] == "ACTIVE", made
    log = wait_console(cloud, "md1", READY, 1)
    assert f'meta_data.json (metadata-service) {{"uuid": "{made["id"]}"' in log, log[-3000:]
    expected = "user_data (metadata-service) #!/bin/sh echo user-data-through-the-metadata-proxy"
    assert expected in log, log[-3000:]
    assert f"ssh key (metadata-service) {KEY}" in log, log[-3000:]
    cloud.openstack("server", "delete", "--wait", "md1")
