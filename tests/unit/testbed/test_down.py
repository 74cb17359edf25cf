"""``down`` goes on past a step that fails, and keeps the state file for another try."""

from __future__ import annotations

from pathlib import Path

from saphira.devtools.testbed.bed import Bed
from saphira.devtools.testbed.layout import Layout
from saphira.devtools.testbed.runner import Result
from saphira.devtools.testbed.state import BedState
from tests.unit.testbed.fakes import FakeRunner

LINKS = '[{"ifname": "lo"}, {"ifname": "tbdev-m"}, {"ifname": "tbdev-1p"}]'


def test_an_unreachable_database_server_leaves_the_rest_removed_and_the_state_kept(
    tmp_path: Path,
) -> None:
    layout = Layout("dev", run_dir=tmp_path / "run", data_dir=tmp_path / "data")
    BedState("dev", 150, ["node1", "node2"], database_url="nosuchdb://u:p@h/x",
             rabbit_url="rabbit://u:p@h/v", rabbitmqctl=["ctl", "-n", "r@x"],
             ).save(layout.state_file)  # fmt: skip
    (layout.bed_dir / "node1").mkdir(parents=True)
    runner = FakeRunner({("ip", "-j", "link"): Result(0, LINKS, "")})
    said: list[str] = []
    problems = Bed(layout, runner, say=said.append).down()
    assert len(problems) == 1 and "database server" in problems[0]
    assert ["ctl", "-n", "r@x", "-q", "list_vhosts", "name"] in runner.calls  # the bed's broker
    assert ["ip", "link", "delete", "tbdev-m"] in runner.calls
    assert ["ip", "link", "delete", "tbdev-1p"] in runner.calls
    assert not layout.bed_dir.exists()
    assert "removed links: tbdev-m, tbdev-1p" in said  # down says what it removed
    assert not [line for line in said if "databases" in line]  # not what it could not
    assert layout.state_file.exists()  # the next down drops the databases
