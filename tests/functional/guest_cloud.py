"""`saphira up` with real guests on a provider network of its own, for a module's tests."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from pathlib import Path

from saphira.devtools.leftovers import purge
from tests.functional.cloud import Cloud, start_cloud
from tests.integration.libvirt.guests import qemu_reachable_dir


@contextlib.contextmanager
def guest_cloud(prefix: str, where: Path, mechanism_conf: str) -> Iterator[tuple[Cloud, Path]]:
    """The running cloud and its instances path; afterwards ``saphira purge`` takes away
    its guests, its bridge and what its DHCP agent left (dnsmasq outlives the cloud).

    ``mechanism_conf`` names the bridge (``[ovs]`` or ``[linux_bridge]``
    ``bridge_mappings``, and ``[ml2]`` if needed); the subnet is a random /24.
    """
    cidr = f"10.{random.randrange(100, 250)}.{random.randrange(0, 250)}.0/24"
    conf = where / f"{prefix}.conf"
    with qemu_reachable_dir(prefix) as root:
        instances = root / "instances"
        conf.write_text(
            f"[DEFAULT]\ninstances_path = {instances}\nvif_plugging_timeout = 120\n"
            f"{mechanism_conf}[provider]\ncidr = {cidr}\n[agent]\npolling_interval = 0.5\n"
        )
        args = ["--compute-driver", "libvirt.LibvirtDriver", "--test-image",
                "--provider-network", "--config-file", str(conf)]  # fmt: skip
        (root / "cloud").mkdir()
        try:
            cloud = start_cloud(str(root / "cloud"), args)
            try:
                yield cloud, instances
                assert cloud.stop() == 0, cloud.log()
            finally:
                cloud.kill()
        finally:
            for state in sorted(p for p in (root / "cloud").glob("state*") if p.is_dir()):
                purge(state)  # every start attempt's state directory


@contextlib.contextmanager
def libvirt_cloud(prefix: str, where: Path, cloud_dir: Path, conf: str = "") -> Iterator[Cloud]:
    """`saphira up` on the libvirt driver with the tiny image and no provider network;
    ``conf`` is added to its configuration. Its guests are gone afterwards."""
    with qemu_reachable_dir(prefix) as root:
        instances = root / "instances"
        path = where / f"{prefix}.conf"
        path.write_text(f"[DEFAULT]\ninstances_path = {instances}\n{conf}")
        running = start_cloud(
            str(cloud_dir),
            ["--compute-driver", "libvirt.LibvirtDriver", "--test-image",
             "--config-file", str(path)],
        )  # fmt: skip
        try:
            yield running
            if running.proc is not None and running.proc.poll() is None:
                assert running.stop() == 0, running.log()
        finally:
            running.kill()
            purge(running.state_dir)
