"""The sudoers rule: the project's one helper command, checked by the real visudo -c -f."""

from __future__ import annotations

import sys
from pathlib import Path

from saphira.join import sudoers
from saphira.join.runner import Subprocess

REPO = Path(__file__).resolve().parents[3]


def test_rule_is_the_projects_rule_for_this_interpreter() -> None:
    shipped = (REPO / "etc/sudoers.d/saphira").read_text().splitlines()
    ours = sudoers.rule().splitlines()
    assert [line for line in ours if not line.startswith("#")] == [
        line.replace("/usr/bin/python3", sys.executable)
        for line in shipped
        if line and not line.startswith("#")
    ]


def test_visudo_accepts_the_rule_and_names_a_broken_one(tmp_path: Path) -> None:
    assert sudoers.check_text(Subprocess(), sudoers.rule()) is None
    broken = tmp_path / "broken"
    broken.write_text(sudoers.rule().replace("(root)", "(root"))
    problem = sudoers.check_file(Subprocess(), broken)
    assert problem is not None and "syntax error" in problem
