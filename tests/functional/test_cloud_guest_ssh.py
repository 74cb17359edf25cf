"""SSH into a real tiny guest on `provider` (libvirt, TCG) from the host, as a user would:
the key pair Nova generated gets root in (the guest read the public key from the
metadata service through the DHCP namespace's proxy), once a security group lets the
host reach port 22; a command runs there and answers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import paramiko
import pytest

from saphira.guest_image import READY
from tests.functional.cloud import Cloud
from tests.functional.conftest import ProviderCloud
from tests.functional.test_cloud_libvirt import wait_console
from tests.guest_ssh import connect, run
from tests.polling import wait_for

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("libvirt")]
NAME = "ssh1"


@pytest.fixture(scope="module")
def cloud(provider_cloud: ProviderCloud) -> Cloud:
    return provider_cloud.cloud


@pytest.fixture
def guest(cloud: Cloud, tmp_path: Path) -> Iterator[tuple[str, paramiko.PKey]]:
    """NAME on `provider` with a generated key pair and a group opening port 22 to the
    host (the subnet's gateway); its fixed IP and the key. Removed afterwards."""
    private = tmp_path / "ssh-key"
    private.write_text(cloud.openstack("keypair", "create", "ssh-key"))
    key = paramiko.PKey.from_path(private)  # whichever type the client made
    (subnet,) = cloud.openstack("subnet", "list", "--network", "provider", "-f", "json")
    host = cloud.openstack("subnet", "show", subnet["ID"], "-f", "json")["gateway_ip"]
    cloud.openstack("security", "group", "create", "ssh-access")
    cloud.openstack("security", "group", "rule", "create", "--protocol", "tcp",
                    "--dst-port", "22", "--remote-ip", f"{host}/32", "ssh-access")  # fmt: skip
    cloud.openstack(
        "server", "create", "--image", "saphira-tiny", "--flavor", "saphira.tiny",
        "--network", "provider", "--key-name", "ssh-key", "--security-group", "ssh-access",
        "--wait", NAME,
    )  # fmt: skip
    try:
        (port,) = cloud.openstack("port", "list", "--server", NAME, "-f", "json")
        (fixed,) = port["Fixed IP Addresses"]
        yield str(fixed["ip_address"]), key
    finally:
        cloud.openstack("server", "delete", "--wait", NAME)
        cloud.openstack("security", "group", "delete", "ssh-access")
        cloud.openstack("keypair", "delete", "ssh-key")


def _login(ip: str, key: paramiko.PKey) -> paramiko.SSHClient | None:
    try:
        return connect(ip, 22, key)
    except (OSError, paramiko.SSHException):
        return None  # the group's flows may still be on their way


def test_root_logs_in_with_the_generated_key_and_runs_a_command(
    cloud: Cloud, guest: tuple[str, paramiko.PKey]
) -> None:
    ip, key = guest
    log = wait_console(cloud, NAME, READY, 1)
    assert "SAPHIRA-GUEST: ssh keys 1" in log, log[-3000:]
    assert "SAPHIRA-GUEST: ssh listening on 22" in log, log[-3000:]
    client = wait_for(f"SSH to {NAME} at {ip}", lambda: _login(ip, key), timeout=60, interval=1)
    with client:
        status, output = run(client, "hostname; id -u; ip -4 -o addr show eth0")
    assert status == 0
    hostname, uid, address = output.splitlines()
    assert (hostname, uid) == (NAME, "0")
    assert f" {ip}/" in address
