"""The join step: the tool inside the node with a fresh token, or the command to run later."""

from __future__ import annotations

import sys
from pathlib import Path

from saphira.devtools.testbed.bed import Bed
from saphira.devtools.testbed.layout import Layout
from saphira.devtools.testbed.runner import Result
from saphira.devtools.testbed.state import BedState
from tests.unit.testbed.fakes import FakeRunner

TOOL = "/venv/bin/saphira-openstack-setup-compute"
MANAGE = (sys.executable, "-m", "saphira.cmd.manage")


def _bed(tmp_path: Path, runner: FakeRunner, tool: str | None, said: list[str]) -> Bed:
    state = BedState("dev", 150, ["node1", "node2"], database_url="db://", rabbit_url="rabbit://")
    layout = Layout("dev", run_dir=tmp_path / "run", data_dir=tmp_path / "data")
    return Bed(layout, runner, said.append, state, join_tool=lambda: tool)


def test_each_node_joins_with_its_own_token(tmp_path: Path) -> None:
    runner, said = FakeRunner({MANAGE: Result(0, "note\nTOKEN-A\n", "")}), list[str]()
    bed = _bed(tmp_path, runner, TOOL, said)
    bed.join("node2")
    (joined,) = [call for call in runner.calls if TOOL in call]
    assert joined[: joined.index(TOOL)][-2:] == ["--net=/run/netns/stb-dev-node2", "--"]
    assert joined[joined.index("--token") + 1] == "TOKEN-A"
    assert joined[joined.index("--controller") + 1] == "10.150.0.1"
    assert said == ["node2: joined"]


def test_without_the_tool_the_bed_says_how_to_join_and_runs_nothing(tmp_path: Path) -> None:
    runner, said = FakeRunner(), list[str]()
    _bed(tmp_path, runner, None, said).join("node1")
    assert runner.calls == []
    assert said[0].startswith(
        "node1: ready to join (saphira-openstack-setup-compute is not installed)"
    )
