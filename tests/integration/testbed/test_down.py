"""``down`` leaves nothing behind: after a whole ``up``, and after one that failed half-way."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence

import pytest

from saphira.devtools.testbed import procs
from saphira.devtools.testbed.errors import TestbedError
from saphira.devtools.testbed.runner import TIMEOUT, Result, SystemRunner
from saphira.devtools.testbed.state import Started, start_time
from tests.integration.testbed.conftest import new_bed
from tests.integration.testbed.footprint import footprint
from tests.polling import wait_for

pytestmark = pytest.mark.integration


def _running(pids: Sequence[int]) -> list[Started]:
    found = []
    for pid in pids:
        begun = start_time(pid)
        if begun is not None:
            found.append(Started(str(pid), pid, begun))
    return found


def test_down_after_up_leaves_nothing_behind() -> None:
    bed = new_bed()
    before = footprint(bed.layout)
    stray = None
    try:
        bed.up()
        node = bed.node("node1")
        stray = subprocess.Popen(node.enter(["sleep", "600"]))  # not a daemon the bed knows
        up = footprint(bed.layout)
        assert len(up.netns) == 2 and len(up.links) == 6 and len(up.mounts) == 6
        made = _running([p for name in bed.layout.nodes for p in bed.node(name).processes()])
        assert stray.pid in {s.pid for s in made}
    finally:
        said: list[str] = []
        bed.say = said.append
        problems = bed.down()
    assert problems == []
    assert stray.wait(timeout=5) is not None
    assert f"sleep ({stray.pid})" in "\n".join(said)  # down says what it ended
    assert any(line.startswith("removed node node2") for line in said)
    assert any(line.startswith("removed links: ") for line in said)
    assert footprint(bed.layout) == before
    assert [s for s in made if s.alive()] == []


class FailingRunner(SystemRunner):
    """Fails the command that would make node2's provider veth, as a broken host would."""

    def run(self, argv: Sequence[str], check: bool = True, timeout: float = TIMEOUT) -> Result:
        if "veth" in argv and "eth1" in argv and any("node2" in arg for arg in argv):
            raise TestbedError(detail="injected failure")
        return super().run(argv, check, timeout)


def test_down_after_a_half_failed_up_leaves_nothing_behind() -> None:
    bed = new_bed()
    before = footprint(bed.layout)
    bed.runner = FailingRunner()
    with pytest.raises(TestbedError, match="injected"):
        bed.up()
    half = footprint(bed.layout)
    assert bed.layout.state_file.exists() and half.netns and half.links
    bed.runner = SystemRunner()
    assert bed.down() == []
    assert footprint(bed.layout) == before
    assert procs.in_namespaces([]) == []


def test_a_process_in_net_and_mount_namespaces_of_its_own_is_found_by_its_uts() -> None:
    """As a node's DHCP server is: ``ip netns exec`` inside the node keeps its UTS only."""
    own_net = procs.ns_key(procs.PROC / "self" / "ns" / "net")
    sleeper = subprocess.Popen(["unshare", "--uts", "--", "unshare", "--net", "--mount", "--",
                                "sleep", "60"])  # fmt: skip
    try:
        net = procs.PROC / str(sleeper.pid) / "ns" / "net"
        wait_for("the sleeper's own network namespace", lambda: procs.ns_key(net) != own_net)
        uts = procs.ns_key(procs.PROC / str(sleeper.pid) / "ns" / "uts")
        assert procs.in_namespaces([uts]) == [sleeper.pid]
    finally:
        sleeper.kill()
        sleeper.wait()
