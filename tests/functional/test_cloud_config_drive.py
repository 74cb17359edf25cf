"""`openstack server create --config-drive true --user-data --key-name` on `saphira up`
with libvirt: the tiny guest, on no network (no metadata route), prints the user
data and the key it read from its config drive; the drive goes with the server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from saphira.devtools.leftovers import purge
from saphira.guest_image import READY
from tests.functional.cloud import Cloud, start_cloud
from tests.functional.test_cloud_libvirt import wait_console
from tests.integration.libvirt.guests import qemu_reachable_dir

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("libvirt")]
KEY = (
    Ed25519PrivateKey.generate()
    .public_key()
    .public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    .decode()
)
USER_DATA = "#!/bin/sh\necho cli-user-data-on-the-drive\n"


@pytest.fixture(scope="module")
def instances() -> Iterator[Path]:
    with qemu_reachable_dir("drive-e2e") as root:
        yield root / "instances"


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory, instances: Path) -> Iterator[Cloud]:
    conf = tmp_path_factory.mktemp("conf") / "libvirt.conf"
    conf.write_text(f"[DEFAULT]\ninstances_path = {instances}\nshutdown_timeout = 30\n")
    running = start_cloud(
        str(tmp_path_factory.mktemp("cloud")),
        ["--compute-driver", "libvirt.LibvirtDriver", "--test-image", "--config-file", str(conf)],
    )
    try:
        yield running
        if running.proc is not None and running.proc.poll() is None:
            assert running.stop() == 0, running.log()
    finally:
        running.kill()
        purge(running.state_dir)


def test_the_guest_prints_user_data_and_key_from_its_config_drive(
    cloud: Cloud, instances: Path, tmp_path: Path
) -> None:
    (tmp_path / "key.pub").write_text(KEY)
    (tmp_path / "user-data").write_text(USER_DATA)
    cloud.openstack("keypair", "create", "--public-key", str(tmp_path / "key.pub"), "drive-key")
    made: dict[str, Any] = cloud.openstack(
        "server", "create", "--image", "saphira-tiny", "--flavor", "saphira.tiny",
        "--no-network", "--config-drive", "true", "--user-data", str(tmp_path / "user-data"),
        "--key-name", "drive-key", "--wait", "d1", "-f", "json",
    )  # fmt: skip
    assert made["status"] == "ACTIVE", made
    assert made["config_drive"] == "True"
    assert (instances / made["id"] / "disk.config").is_file()
    log = wait_console(cloud, "d1", READY, 1)
    assert "SAPHIRA-GUEST: config drive /dev/sr0" in log
    assert (
        "SAPHIRA-GUEST: user_data (config-drive) #!/bin/sh echo cli-user-data-on-the-drive" in log
    )
    assert f"SAPHIRA-GUEST: ssh key (config-drive) {KEY}" in log
    assert f'meta_data.json (config-drive) {{"uuid": "{made["id"]}"' in log
    cloud.openstack("server", "delete", "--wait", "d1")
    assert not (instances / made["id"]).exists()
