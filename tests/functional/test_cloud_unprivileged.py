"""`saphira up` as root, by default: every Saphira process but the privileged
helper runs as the saphira user, and the cloud (agents included) still works,
started from a 0711 directory (dnsmasq, as nobody, must reach the DHCP files)."""

from __future__ import annotations

import pwd
import random
import secrets
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from saphira.devtools.leftovers import purge
from tests.functional.cloud import Cloud, start_cloud
from tests.polling import wait_for
from tests.scratch import traversable_dir
from tests.unprivileged import USER

pytestmark = [pytest.mark.functional, pytest.mark.xdist_group("ovs")]
MARK = "SAPHIRA_TEST_PROCESS_MARK"  # inherited by every process the cloud starts


@dataclass(frozen=True)
class Proc:
    pid: int
    uid: int
    argv: list[str]


def processes_marked(mark: str) -> list[Proc]:
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if f"{MARK}={mark}".encode() not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            uid = int(next(line for line in (entry / "status").read_text().splitlines()
                           if line.startswith("Uid:")).split()[1])  # fmt: skip
            argv = (entry / "cmdline").read_bytes().decode().split("\0")[:-1]
        except (OSError, StopIteration, ValueError):
            continue
        found.append(Proc(int(entry.name), uid, argv))
    return found


@pytest.fixture(scope="module")
def marked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cloud, str]]:
    bridge = f"sxbr{secrets.token_hex(4)}"
    cidr = f"10.{random.randrange(100, 250)}.{random.randrange(0, 250)}.0/24"
    mark = uuid.uuid4().hex
    with pytest.MonkeyPatch.context() as env, traversable_dir("saphira-unpriv-") as root:
        conf = root / "network.conf"
        conf.write_text(f"[ovs]\nbridge_mappings = physnet1:{bridge}\n[provider]\ncidr = {cidr}\n")
        env.setenv(MARK, mark)
        args = ["--provider-network", "--config-file", str(conf)]
        running = start_cloud(str(root), args)
        try:
            yield running, mark
            assert running.stop() == 0, running.log()
        finally:
            running.kill()
            purge(running.state_dir)


def test_only_the_privileged_helper_runs_as_root(marked: tuple[Cloud, str]) -> None:
    cloud, mark = marked
    user = pwd.getpwnam(USER)
    # A process just exiting (a daemon's parent) shows an empty command line.
    saphira = [p for p in processes_marked(mark) if p.argv and "python" in Path(p.argv[0]).name]
    helpers = [p for p in saphira if "saphira.privsep.helper" in p.argv]
    assert cloud.proc is not None
    assert [p.uid for p in saphira if p.pid == cloud.proc.pid] == [user.pw_uid]
    assert len(helpers) == 1, saphira
    assert helpers[0].uid == 0
    assert {p.uid for p in saphira if p not in helpers} == {user.pw_uid}, saphira
    owners = {path.stat().st_uid for path in [cloud.state_dir, *cloud.state_dir.rglob("*")]}
    assert owners == {user.pw_uid}


def test_the_agents_work_through_the_helper(marked: tuple[Cloud, str]) -> None:
    cloud, _ = marked

    def both_alive() -> list[dict[str, Any]] | None:
        listed: list[dict[str, Any]] = cloud.openstack("network", "agent", "list", "-f", "json")
        alive = sorted(a["Agent Type"] for a in listed if a["Alive"])
        return listed if alive == ["DHCP agent", "Open vSwitch agent"] else None

    wait_for("two agents alive", both_alive)
    network = cloud.openstack("network", "show", "provider", "-f", "json")
    assert network["status"] == "ACTIVE"
