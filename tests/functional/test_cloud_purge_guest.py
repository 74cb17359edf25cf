"""`saphira purge` of a stopped cloud with a real guest: the domain and its disks go.

The guest outlives `saphira up` (as it outlives nova-compute); purge finds it
by its files under the cloud's instances path. A domain someone else defined,
with its disk under a directory that only starts like that path, stays.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import libvirt
import pytest

from saphira.devtools.leftovers import purge
from saphira.service.purge.survey import domains
from tests.functional.cloud import Cloud, start_cloud
from tests.integration.libvirt.guests import qemu_reachable_dir

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("libvirt")]
URI = "qemu:///system"


def bystander_xml(name: str, disk: Path) -> str:
    return (
        f"<domain type='qemu'><name>{name}</name><memory unit='MiB'>64</memory>"
        "<os><type arch='x86_64'>hvm</type></os><devices><disk type='file' device='disk'>"
        f"<source file='{disk}'/><target dev='vda' bus='virtio'/></disk></devices></domain>"
    )


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cloud, Path, str]]:
    with qemu_reachable_dir("purgeg") as root:
        instances = root / "instances"
        conf = tmp_path_factory.mktemp("conf") / "guest.conf"
        conf.write_text(f"[DEFAULT]\ninstances_path = {instances}\n")
        name = f"sxpurge-{secrets.token_hex(4)}"
        conn = libvirt.open(URI)
        conn.defineXML(bystander_xml(name, Path(f"{instances}-other", "u1", "disk")))
        running: Cloud | None = None
        try:
            (root / "cloud").mkdir()
            running = start_cloud(str(root / "cloud"), [
                "--compute-driver", "libvirt.LibvirtDriver", "--test-image",
                "--config-file", str(conf)])  # fmt: skip
            yield running, instances, name
        finally:
            if running is not None:
                running.kill()
                purge(running.state_dir)
            conn.lookupByName(name).undefine()
            conn.close()


def _guests_under(instances: Path) -> list[str]:
    return [d.name for d in domains(URI) if any(p.startswith(f"{instances}/") for p in d.paths)]


def test_purge_removes_the_guest_its_disks_and_no_other_domain(
    world: tuple[Cloud, Path, str],
) -> None:
    cloud, instances, bystander = world
    server = cloud.openstack(
        "server", "create", "--image", "saphira-tiny", "--flavor", "saphira.tiny",
        "--no-network", "--wait", "g1", "-f", "json",
    )  # fmt: skip
    assert cloud.stop() == 0, cloud.log()
    guests = _guests_under(instances)
    assert len(guests) == 1 and (instances / server["id"]).is_dir()

    argv = [sys.executable, "-m", "saphira.cmd.up", "purge", "--state-dir", str(cloud.state_dir)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert f"removed domain {guests[0]} (files under {instances})" in lines
    assert f"removed directory {instances / server['id']} (a guest's files)" in lines
    assert _guests_under(instances) == []
    assert not (instances / server["id"]).exists()
    assert bystander in [d.name for d in domains(URI)]
    assert purge(cloud.state_dir) == ["nothing to remove"]
