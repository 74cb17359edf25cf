"""`saphira purge`: a stopped cloud with DHCP on two bridges taken away, nothing else.

The cloud maps physnet1 to a bridge it makes and physnet2 to one the test
made first (the operator's); it serves DHCP (with metadata proxies) on a
network of each. Bystanders (``purge_world``) stand beside it, and a second
cloud runs on a bridge of its own all along. Purge must
refuse while it runs, change nothing with --dry-run, then remove all of
the cloud's and none of theirs, and find nothing the second time.
"""

from __future__ import annotations

import random
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from saphira.network.l2.ovs_pipeline import MARK, MARK_MASK
from saphira.privsep import netns, ovs
from tests.functional.cloud import Cloud, start_cloud
from tests.functional.purge_world import Bystanders, HostSnapshot, snapshot
from tests.integration.libvirt.guests import qemu_reachable_dir
from tests.polling import wait_for

SAPHIRA_FLOWS = f"cookie={MARK:#x}/{MARK_MASK:#x}"
pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("ovs")]


def _cidr() -> str:
    return f"10.{random.randrange(100, 250)}.{random.randrange(0, 250)}.0/24"


def purge(state_dir: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "saphira.cmd.up", "purge", "--state-dir", str(state_dir)]
    return subprocess.run([*argv, *flags], capture_output=True, text=True, timeout=120)


@dataclass(frozen=True)
class World:
    cloud: Cloud  # the one purged
    others: Bystanders
    second: Cloud  # another cloud, running on a bridge of its own all along


def _args(conf: Path, mappings: str) -> list[str]:
    conf.write_text(f"[ovs]\nbridge_mappings = {mappings}\n[provider]\ncidr = {_cidr()}\n")
    return ["--provider-network", "--config-file", str(conf)]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    made, second = (f"sxbr{secrets.token_hex(4)}" for _ in range(2))
    confs = tmp_path_factory.mktemp("conf")
    with qemu_reachable_dir("purge") as root:
        others = Bystanders.named(root / "a" / "state0")
        others.make()
        clouds: list[Cloud] = []
        try:
            for name, mappings in (("a", f"physnet1:{made},physnet2:{others.operator_bridge}"),
                                   ("b", f"physnet1:{second}")):  # fmt: skip
                (root / name).mkdir(exist_ok=True)  # the bystanders' files may be in a/
                args = _args(confs / f"{name}.conf", mappings)
                clouds.append(start_cloud(str(root / name), args))
            yield World(clouds[0], others, clouds[1])
        finally:
            for cloud in clouds:
                cloud.kill()
                purge(cloud.state_dir)
            others.remove()


def served(cloud: Cloud) -> tuple[list[str], list[str]]:
    """The namespaces and the dnsmasq pid files of the cloud's DHCP servers now up."""
    dhcp = cloud.state_dir / "dhcp"
    networks = sorted(p.name for p in dhcp.iterdir()) if dhcp.is_dir() else []
    running = {pid_file for _, pid_file in snapshot().processes}
    namespaces = [f"qdhcp-{n}" for n in networks if f"qdhcp-{n}" in netns.names()]
    return namespaces, [f for n in networks if (f := f"--pid-file={dhcp / n / 'pid'}") in running]


def of_cloud(found: HostSnapshot, cloud: Cloud, networks: list[str]) -> HostSnapshot:
    """What of ``found`` is the cloud's: its networks' namespaces, its processes."""
    return HostSnapshot(
        found.namespaces & {f"qdhcp-{n}" for n in networks},
        frozenset(),
        frozenset(p for p in found.processes if p[1].startswith(f"--pid-file={cloud.state_dir}/")),
    )


def fully_served(cloud: Cloud) -> tuple[list[str], list[str]] | None:
    found = served(cloud)
    return found if all(found) else None


def _serve_second_network(cloud: Cloud) -> list[str]:
    """Network ids of the provider network and of one on the operator's bridge, both served."""
    second = cloud.openstack(
        "network",
        "create",
        "--provider-network-type",
        "flat",
        "--provider-physical-network",
        "physnet2",
        "opnet",
        "-f",
        "json",
    )
    cloud.openstack("subnet", "create", "--network", second["id"], "--subnet-range", _cidr(),
                    "opsub", "-f", "json")  # fmt: skip
    ids = [cloud.openstack("network", "show", "provider", "-f", "json")["id"], second["id"]]
    wait_for("DHCP of both networks", lambda: {f"qdhcp-{n}" for n in ids} <= set(netns.names()))
    return ids


def tagged_ports(bridge: str) -> list[str]:
    """Ports standing for a network-service port (the bridge's own port is not one)."""
    return [i.name for i in ovs.interfaces(bridge) if "iface-id" in i.external_ids]


def test_purge_takes_the_stopped_cloud_away_and_nothing_else(world: World) -> None:
    cloud, others = world.cloud, world.others
    theirs = wait_for("the second cloud's DHCP", lambda: fully_served(world.second))
    networks = _serve_second_network(cloud)
    wait_for("a DHCP port on the operator's bridge", lambda: tagged_ports(others.operator_bridge))
    assert ovs.dump_flows(others.operator_bridge, SAPHIRA_FLOWS)  # the agent's pipeline
    refused = purge(cloud.state_dir)
    assert (refused.returncode, refused.stdout) == (1, ""), refused
    assert "is running" in refused.stderr
    assert cloud.stop() == 0, cloud.log()

    before = of_cloud(snapshot(), cloud, networks)
    dry = purge(cloud.state_dir, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert of_cloud(snapshot(), cloud, networks) == before  # (other clouds come and go)
    assert len(before.namespaces) == 2 and len(before.processes) == 4  # dnsmasq, proxy each
    planned = dry.stdout.splitlines()
    devices = {line.split()[3] for line in planned if line.startswith("would remove device ")}
    assert devices and devices <= snapshot().devices
    assert all(line.startswith("would remove ") for line in planned), planned
    for network_id in networks:
        assert any(f"namespace qdhcp-{network_id} " in line for line in planned), planned

    done = purge(cloud.state_dir)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [line.replace("would remove", "removed", 1)
                                        for line in planned]  # fmt: skip
    after = snapshot()
    assert not {f"qdhcp-{n}" for n in networks} & after.namespaces
    assert not [p for p in after.processes if p[1].startswith(f"--pid-file={cloud.state_dir}/")]
    assert ovs.bridge(cloud_bridge(cloud)) is None
    assert tagged_ports(others.operator_bridge) == []
    assert ovs.dump_flows(others.operator_bridge, SAPHIRA_FLOWS) == []
    assert others.problems() == []
    assert served(world.second) == theirs
    assert ovs.bridge(cloud_bridge(world.second)) is not None

    again = purge(cloud.state_dir)
    assert (again.returncode, again.stdout) == (0, "nothing to remove\n"), again


def cloud_bridge(cloud: Cloud) -> str:
    return (cloud.state_dir / "host_bridges").read_text().split()[0]
